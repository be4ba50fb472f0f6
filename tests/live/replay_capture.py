#!/usr/bin/env python3
"""replay_capture.py INPUT OUTPUT [--speed X] [--stall-before FRAME --stall-s S] [--log LOG] [--copy FILE]

Writes the pcap INPUT to OUTPUT (a FIFO, a file it appends to as it goes,
or - for standard output) with the capture's own timing divided by X: frame
i is written at start + (t_i - t_1) / X on the monotonic clock. With
--stall-before, every frame from FRAME on (1-based) is stamped S seconds
later and written S / X seconds later: a silence inserted in the capture.
--log gets one line per frame, "FRAME MONOTONIC_SECONDS", once it has been
written and flushed: the harness's ground truth of when each frame came.
--copy gets the exact bytes written (the stalled capture), for an offline
run on the same file. A reader that goes away ends the replay quietly."""
import argparse
import os
import struct
import sys
import time


def records(data):
    """(header, [(ts_us, record_header, body)]) of a classic pcap, either byte order, us or ns."""
    magic = data[:4]
    order = {b"\xd4\xc3\xb2\xa1": "<", b"\xa1\xb2\xc3\xd4": ">", b"\x4d\x3c\xb2\xa1": "<", b"\xa1\xb2\x3c\x4d": ">"}
    if magic not in order:
        sys.exit("replay_capture.py: %s is not a classic pcap file" % magic.hex())
    e = order[magic]
    nano = magic in (b"\x4d\x3c\xb2\xa1", b"\xa1\xb2\x3c\x4d")
    out, off = [], 24
    while off + 16 <= len(data):
        sec, frac, incl, orig = struct.unpack(e + "IIII", data[off:off + 16])
        body = data[off + 16:off + 16 + incl]
        out.append([sec * 1000000 + (frac // 1000 if nano else frac), e, nano, orig, body])
        off += 16 + incl
    return data[:24], out


def record_bytes(ts_us, e, nano, orig, body):
    frac = (ts_us % 1000000) * (1000 if nano else 1)
    return struct.pack(e + "IIII", ts_us // 1000000, frac, len(body), orig) + body


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("input")
    ap.add_argument("output")
    ap.add_argument("--speed", type=float, default=1.0)
    ap.add_argument("--stall-before", type=int, default=0)
    ap.add_argument("--stall-s", type=float, default=0.0)
    ap.add_argument("--log")
    ap.add_argument("--copy")
    args = ap.parse_args()
    with open(args.input, "rb") as f:
        header, recs = records(f.read())
    for i, r in enumerate(recs):
        if args.stall_before and i + 1 >= args.stall_before:
            r[0] += int(args.stall_s * 1e6)
    out = sys.stdout.buffer if args.output == "-" else open(args.output, "ab", buffering=0)
    log = open(args.log, "w") if args.log else None
    copy = open(args.copy, "wb") if args.copy else None
    try:
        out.write(header)
        out.flush()
        if copy:
            copy.write(header)
        start, t1 = time.monotonic(), recs[0][0] if recs else 0
        for i, r in enumerate(recs):
            due = start + (r[0] - t1) / 1e6 / args.speed
            while time.monotonic() < due:
                time.sleep(min(0.01, max(0.0, due - time.monotonic())))
            chunk = record_bytes(*r)
            out.write(chunk)
            out.flush()
            if copy:
                copy.write(chunk)
            if log:
                log.write("%d %.6f\n" % (i + 1, time.monotonic()))
                log.flush()
    except BrokenPipeError:
        # The reader stopped (Ctrl-C in a live run): not the replayer's error.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    finally:
        if copy:
            copy.close()
        if log:
            log.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
