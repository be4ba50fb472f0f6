#!/usr/bin/env python3
"""test_live_table.py SANDBOX PLUGIN_SO CAPTURE: the "Meter block-wise
transfers" table (-z meter,ota_table, the GUI's Statistics dialog) during a
live capture. tshark captures from a FIFO that tests/lib/pcap_replay.py
feeds with CAPTURE, stopping by itself after STOP_AT frames (-c), in the
middle of the firmware download; then again to the end of the capture.

What the rows must say, from stock tshark's CoAP fields (no plugin): the
Blocks column is the number of distinct Block2 numbers of the 2.05
responses read so far, Complete is "no" mid-capture and "yes" at the end,
First frame is the first request for the image, and the progress, rate
and durations are rounded for reading. The GUI's retap of the frames so far
is tshark -2 on the same prefix: the same rows."""
import os
import re
import subprocess
import sys
import tempfile

from checks import Checks
import stock_firmware

STOP_AT = 1000
CONTEXT = stock_firmware.CONTEXT
IMAGE = "v2.1.0.img"
DEADLINE_S = 60


def table_rows(text):
    """The rows of the table, as dicts by column name."""
    lines = text.splitlines()
    head = next((i for i, l in enumerate(lines) if l.startswith("Transfer |")), None)
    if head is None:
        return []
    names = [c.strip() for c in lines[head].split("|")[:-1]]
    rows = []
    for line in lines[head + 2:]:
        if line.startswith("===="):
            break
        cells = [c.strip() for c in line.split("|")[:-1]]
        rows.append(dict(zip(names, cells)))
    return rows


def live_run(sandbox, so, capture, tmp, count):
    """tshark -i FIFO [-c count] with the replayer feeding the FIFO."""
    fifo = os.path.join(tmp, "live-%s" % (count or "all"))
    os.mkfifo(fifo)
    os.chmod(fifo, 0o666)       # tshark may run as nobody (tests/as-user)
    args = [sandbox, so, "-n", "-i", fifo, *CONTEXT, "-q", "-z", "meter,ota_table"]
    if count:
        args[3:3] = ["-c", str(count)]
    reader = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    here = os.path.dirname(os.path.abspath(__file__))
    try:
        replay = subprocess.run([sys.executable, os.path.join(here, "..", "lib", "pcap_replay.py"), capture, fifo],
                                capture_output=True, text=True, timeout=DEADLINE_S)
        out, err = reader.communicate(timeout=DEADLINE_S)
    finally:
        if reader.poll() is None:
            reader.kill()
            reader.communicate()
    # A reader stopped by -c may close the FIFO before the replayer is done.
    replay_ok = replay.returncode == 0 or (count and "closed the capture early" in replay.stderr)
    return reader.returncode, out, err, replay_ok


def firmware_row(rows):
    return next((r for r in rows if r.get("Path", "").endswith(IMAGE)), None)


def main():
    # Under the sanitizer build (its runtimes preloaded into tshark and the
    # dumpcap a live capture runs) this run did not finish within its
    # timeout; why is not known. The dissector runs under the sanitizers in
    # every other test; this one runs in the normal builds.
    if "libasan" in os.environ.get("LD_PRELOAD", ""):
        print("SKIP: a live capture is not run under the sanitizer build")
        return 77
    sandbox, so, capture = sys.argv[1:4]
    check = Checks()
    with tempfile.TemporaryDirectory() as tmp:
        os.chmod(tmp, 0o777)
        prefix = os.path.join(tmp, "prefix.pcap")
        subprocess.run(["editcap", "-r", capture, prefix, "1-%d" % STOP_AT], check=True)
        blocks_mid = stock_firmware.blocks(prefix)
        blocks_end = stock_firmware.blocks(capture)
        first = stock_firmware.first_request(capture, IMAGE)
        check(0 < blocks_mid < blocks_end and first,
              "stock tshark: %d of %d blocks by frame %d, first request in frame %s"
              % (blocks_mid, blocks_end, STOP_AT, first))

        runs = {}
        for name, count in (("mid-capture", STOP_AT), ("end", None)):
            rc, out, err, replay_ok = live_run(sandbox, so, capture, tmp, count)
            check(rc == 0 and replay_ok, "%s: live tshark exits 0 (%d): %r" % (name, rc, err[-300:]))
            runs[name] = firmware_row(table_rows(out))
            check(runs[name] is not None, "%s: the table has a row for /firmware/%s" % (name, IMAGE))
        mid, end = runs["mid-capture"] or {}, runs["end"] or {}

        check(mid.get("Blocks") == str(blocks_mid) and mid.get("Complete") == "no",
              "mid-capture: %s blocks (stock: %d), complete %s" % (mid.get("Blocks"), blocks_mid, mid.get("Complete")))
        check(end.get("Blocks") == str(blocks_end) and end.get("Complete") == "yes",
              "end: %s blocks (stock: %d), complete %s" % (end.get("Blocks"), blocks_end, end.get("Complete")))
        for name, row in (("mid-capture", mid), ("end", end)):
            check(first and row.get("First frame") == first,
                  "%s: first frame %s (stock: %s)" % (name, row.get("First frame"), first))
            check(re.fullmatch(r"\d+\.\d B/s", row.get("Rate", "")) is not None
                  and re.fullmatch(r"\d+\.\d s", row.get("Duration", "")) is not None
                  and re.fullmatch(r"\d+\.\d{3} s", row.get("RTT median", "")) is not None,
                  "%s: rate, duration and RTT rounded for reading: %r %r %r"
                  % (name, row.get("Rate"), row.get("Duration"), row.get("RTT median")))
        pct = re.fullmatch(r"(\d+\.\d) %", mid.get("Progress", ""))
        check(pct is not None and 0 < float(pct.group(1)) < 100 and end.get("Progress") == "100.0 %",
              "progress mid-capture %r, at the end %r" % (mid.get("Progress"), end.get("Progress")))

        # The GUI retaps the frames read so far when the dialog opens (or
        # Apply is pressed) during a capture: a second pass over them.
        retap = subprocess.run([sandbox, so, "-n", "-r", prefix, *CONTEXT, "-2", "-q", "-z", "meter,ota_table"],
                               capture_output=True, text=True, timeout=DEADLINE_S)
        check(retap.returncode == 0 and firmware_row(table_rows(retap.stdout)) == runs["mid-capture"],
              "a second pass over the first %d frames gives the live run's row" % STOP_AT)
    return check.summary("live table")


if __name__ == "__main__":
    sys.exit(main())
