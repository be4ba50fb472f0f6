#!/usr/bin/env python3
"""test_frame_records.py SANDBOX PLUGIN_SO COMMITTED_DIR: the preference
meter.frame_records off (what the analyser's one-pass run sets) drops only
what later passes read. On committed captures of every link type, the
-z meter,ota,tsv records are byte for byte those with the records kept;
with tshark -2 the second pass then finds no Meter items (and says nothing
on stderr), where with the records kept it finds them on frames the first
pass marked too."""
import os
import subprocess
import sys

from checks import Checks

CAPTURES = ("default.pcap", "multihop.pcap", "busy.pcap", "two-meters.pcap", "default-gateway.pcap",
            "default-zep.pcap", "router-separate.pcap")


def tshark(sandbox, so, *args):
    return subprocess.run([sandbox, so, "-n", *args], capture_output=True, text=True)


def main():
    sandbox, so, committed = sys.argv[1:4]
    check = Checks()
    for name in CAPTURES:
        cap = os.path.join(committed, name)
        kept = tshark(sandbox, so, "-r", cap, "-q", "-z", "meter,ota,tsv")
        dropped = tshark(sandbox, so, "-r", cap, "-o", "meter.frame_records:FALSE", "-q", "-z", "meter,ota,tsv")
        check(kept.returncode == 0 and dropped.returncode == 0 and not dropped.stderr.strip(),
              "%s: both runs exit 0, nothing on stderr: %r" % (name, dropped.stderr[-300:]))
        check(kept.stdout == dropped.stdout and "meterscope-ota" in kept.stdout,
              "%s: the same records with and without frame records" % name)
        # Which frames carry Meter items: on the first pass, and on a second.
        first = tshark(sandbox, so, "-r", cap, "-Y", "meter", "-T", "fields", "-e", "frame.number").stdout.split()
        second_kept = tshark(sandbox, so, "-r", cap, "-2", "-Y", "meter", "-T", "fields",
                             "-e", "frame.number").stdout.split()
        second = tshark(sandbox, so, "-r", cap, "-o", "meter.frame_records:FALSE", "-2", "-Y", "meter",
                        "-T", "fields", "-e", "frame.number")
        # (The first pass marks a few more: polls and their ACKs, whose link
        # facts are shown while read but not kept.)
        check(len(second_kept) > 0,
              "%s: with records, a second pass shows Meter items (%d frames; %d on the first)"
              % (name, len(second_kept), len(first)))
        check(second.returncode == 0 and second.stdout.split() == [] and not second.stderr.strip(),
              "%s: without records a second pass shows no Meter items and exits 0 (%d frames, %r)"
              % (name, len(second.stdout.split()), second.stderr[-300:]))
    return check.summary("frame records")


if __name__ == "__main__":
    sys.exit(main())
