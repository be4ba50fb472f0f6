#!/usr/bin/env python3
"""train_attempts.py CAPTURE METER_SHORT [--window MS] [-o PREF]...: how the
MAC attempts of the fragments sent down to one meter fared, by hop and by
place in the datagram, read off a capture frame by frame with stock tshark
(no plugin). A measurement for docs/recommendation.md, not a test.

The meter's parent is the sender of most fragments addressed to the meter
(METER_SHORT, e.g. 0x0801); the hop before it, the sender of most fragments
addressed to the parent under the tags the meter's fragments carry (a
forwarder keeps the originator's tag, as the generator's routers do). The
hop before counts every datagram it carries to the parent, the meter's
and any other child's. For each fragment on
each of those hops (a FRAG1 is place "first", the highest offset any hop
carried under the tag "last", the rest "middle"): its attempts (frames with
one sequence number), those no ACK followed within 2 ms, and whether one
was acknowledged at all (else: lost on that hop). Then the attempts within
WINDOW ms (default 2) of a frame of the same datagram on the other hop:
the datagram competing with itself."""
import argparse
import collections
import subprocess
import sys

FIELDS = ["frame.number", "frame.time_epoch", "frame.len", "wpan.frame_type", "wpan.seq_no", "wpan.src16",
          "wpan.dst16", "6lowpan.frag.tag", "6lowpan.frag.offset", "6lowpan.frag.size"]
DATA, ACK = "0x0001", "0x0002"
ACK_WITHIN_S = 0.002
BYTE_S = 32e-6   # 250 kbit/s
PHY_BYTES = 6    # preamble, SFD, PHR


def read_frames(capture, prefs):
    argv = ["tshark", "-n", "-r", capture, "-T", "fields", "-E", "separator=,", "-E", "occurrence=f"]
    for p in prefs:
        argv += ["-o", p]
    for f in FIELDS:
        argv += ["-e", f]
    out = subprocess.run(argv, capture_output=True, text=True, check=True).stdout
    frames = []
    for line in out.splitlines():
        n, t, length, ftype, seq, src, dst, tag, off, size = line.split(",")
        # Stamps at the frame's end or start: an air time off either way is
        # well inside the ACK window and the contention window.
        t = float(t)
        frames.append(dict(n=int(n), start=t - (int(length) + PHY_BYTES) * BYTE_S, end=t, type=ftype, seq=seq,
                           src=src, dst=dst, tag=tag, off=int(off) if off else -1, size=size))
    return frames


def acknowledged(frames):
    acked = set()
    for i, f in enumerate(frames):
        if f["type"] != DATA or f["dst"] in ("", "0xffff"):
            continue
        for g in frames[i + 1:i + 4]:
            if g["type"] == ACK and g["seq"] == f["seq"] and g["start"] - f["end"] < ACK_WITHIN_S:
                acked.add(f["n"])
                break
    return acked


def most_common_sender(fragments, dst, tags=None):
    c = collections.Counter(f["src"] for f in fragments if f["dst"] == dst and (tags is None or f["tag"] in tags))
    return c.most_common(1)[0][0] if c else None


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("capture")
    ap.add_argument("meter_short")
    ap.add_argument("--window", type=float, default=2.0, help="ms (default 2)")
    ap.add_argument("-o", dest="prefs", action="append", default=[], help="a tshark preference")
    a = ap.parse_args()
    frames = read_frames(a.capture, a.prefs)
    acked = acknowledged(frames)
    fragments = [f for f in frames if f["type"] == DATA and f["tag"]]
    parent = most_common_sender(fragments, a.meter_short)
    if parent is None:
        sys.exit("train_attempts: no fragment is addressed to %s" % a.meter_short)
    last_tags = {f["tag"] for f in fragments if f["src"] == parent and f["dst"] == a.meter_short}
    before = most_common_sender(fragments, parent, last_tags)
    hops = {(parent, a.meter_short): "last hop (%s to %s)" % (parent, a.meter_short)}
    if before:
        hops[(before, parent)] = "hop before (%s to %s)" % (before, parent)
    trains = collections.defaultdict(list)   # (hop, tag, size) -> frames
    offsets = collections.defaultdict(set)   # (tag, size) -> offsets any hop carried
    for f in fragments:
        hop = hops.get((f["src"], f["dst"]))
        if hop is not None:
            trains[(hop, f["tag"], f["size"])].append(f)
            offsets[(f["tag"], f["size"])].add(f["off"])
    attempts, failed, distinct, lost = (collections.Counter() for _ in range(4))
    near, near_failed = collections.Counter(), collections.Counter()
    window = a.window / 1000
    for (hop, tag, size), train in trains.items():
        places = sorted(offsets[(tag, size)])
        others = [g for (h, t, s), fs in trains.items() if t == tag and s == size and h != hop for g in fs]
        by_try = collections.defaultdict(list)
        for f in train:
            by_try[(f["off"], f["seq"])].append(f)
        for (off, _), tries in by_try.items():
            place = "first" if off == places[0] else "last" if off == places[-1] else "middle"
            distinct[(hop, place)] += 1
            lost[(hop, place)] += not any(f["n"] in acked for f in tries)
            for f in tries:
                attempts[(hop, place)] += 1
                failed[(hop, place)] += f["n"] not in acked
                if any(g["start"] < f["end"] + window and g["end"] > f["start"] - window for g in others):
                    near[hop] += 1
                    near_failed[hop] += f["n"] not in acked
    print("%-34s %-7s %9s %9s %8s %9s" % ("hop", "place", "fragments", "attempts", "failed", "lost"))
    for hop in sorted(set(h for h, _ in attempts)):
        for place in ("first", "middle", "last"):
            k = (hop, place)
            if attempts[k]:
                print("%-34s %-7s %9d %9d %7.1f%% %4d %3.1f%%" % (hop, place, distinct[k], attempts[k],
                      100 * failed[k] / attempts[k], lost[k], 100 * lost[k] / distinct[k]))
        n = sum(attempts[(hop, p)] for p in ("first", "middle", "last"))
        nf = sum(failed[(hop, p)] for p in ("first", "middle", "last"))
        print("%-34s all attempts %d, %.1f%% failed; within %g ms of the datagram's frames on the other hop: %d, "
              "%.1f%% failed" % (hop, n, 100 * nf / n, a.window, near[hop],
                                 100 * near_failed[hop] / near[hop] if near[hop] else 0))


if __name__ == "__main__":
    main()
