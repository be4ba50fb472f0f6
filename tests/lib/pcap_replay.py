#!/usr/bin/env python3
"""pcap_replay.py CAPTURE OUTPUT [--pause-after N ...] [--hold] [--scale S]:
writes a pcap capture into OUTPUT (a FIFO that Wireshark or tshark captures
from with -i, or - for stdout) as a live capture would deliver it.

The records keep their own timestamps, which are what the dissectors read;
--scale S paces the writes at S times the capture's own gaps (0, the
default: as fast as the reader takes them). At each --pause-after N the
replayer stops after the Nth record, says "paused N" on stderr and waits for
a line on stdin, so a test or a script decides when the capture goes on;
with --hold it waits for one more line (or the end of stdin) before closing
OUTPUT, so the capture is still running while the caller looks at it.
"""
import argparse
import struct
import sys
import time

PCAP_MAGICS = {b"\xd4\xc3\xb2\xa1": "<", b"\xa1\xb2\xc3\xd4": ">",
               b"\x4d\x3c\xb2\xa1": "<", b"\xa1\xb2\x3c\x4d": ">"}


def records(data):
    """The capture's records as (seconds, bytes of the whole record)."""
    if len(data) < 24 or data[:4] not in PCAP_MAGICS:
        sys.exit("pcap_replay: not a pcap file (pcapng is not supported)")
    order = PCAP_MAGICS[data[:4]]
    nano = data[:4] in (b"\x4d\x3c\xb2\xa1", b"\xa1\xb2\x3c\x4d")
    pos = 24
    while pos + 16 <= len(data):
        sec, frac, incl, _orig = struct.unpack(order + "IIII", data[pos:pos + 16])
        end = pos + 16 + incl
        if end > len(data):
            sys.exit(f"pcap_replay: record at byte {pos} is cut short")
        yield sec + frac / (1e9 if nano else 1e6), data[pos:end]
        pos = end


def wait_for_go(what):
    print(what, file=sys.stderr, flush=True)
    sys.stdin.readline(256)   # a go-ahead is one short line; never more


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("capture")
    ap.add_argument("output")
    ap.add_argument("--pause-after", type=int, action="append", default=[], metavar="N")
    ap.add_argument("--hold", action="store_true")
    ap.add_argument("--scale", type=float, default=0.0)
    args = ap.parse_args()
    if args.scale < 0 or any(n < 1 for n in args.pause_after):
        ap.error("--scale must be >= 0 and --pause-after >= 1")
    with open(args.capture, "rb") as f:
        data = f.read()
    out = sys.stdout.buffer if args.output == "-" else open(args.output, "wb")
    pauses = set(args.pause_after)
    try:
        out.write(data[:24])
        out.flush()
        start = first = None
        for n, (ts, rec) in enumerate(records(data), 1):
            if args.scale > 0:
                if first is None:
                    first, start = ts, time.monotonic()
                ahead = start + (ts - first) * args.scale - time.monotonic()
                if ahead > 0:
                    time.sleep(ahead)
            out.write(rec)
            if n in pauses:
                out.flush()
                wait_for_go(f"paused {n}")
                if first is not None:   # the pause is not part of the capture's pace
                    first, start = ts, time.monotonic()
        out.flush()
        if args.hold:
            wait_for_go("holding")
    except BrokenPipeError:
        sys.exit("pcap_replay: the reader closed the capture early")
    finally:
        try:
            out.close()
        except BrokenPipeError:
            pass


if __name__ == "__main__":
    main()
