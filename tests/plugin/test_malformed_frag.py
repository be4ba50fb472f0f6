#!/usr/bin/env python3
"""test_malformed_frag.py SANDBOX PLUGIN_SO: broken 6LoWPAN fragmentation in
802.15.4 frames (link type 195). A datagram_size of 0, or smaller than its
fragments, gets meter.frag.bad_size and never counts as complete;
overlapping fragments with conflicting bytes are decoded without the meter
dissector throwing (stock reassembly reports the conflict itself)."""
import os
import struct
import subprocess
import sys
import tempfile

from ieee802154 import fcs


def frame(seq, payload, src=0x0401, dst=0x0400):
    # Data frame, PAN ID compression, short addresses, no ACK request.
    mhr = struct.pack("<HBHHH", 0x8841, seq, 0xface, dst, src)
    psdu = mhr + payload
    return psdu + fcs(psdu)


def frag1(size, tag, data):
    return struct.pack(">HH", 0xc000 | size, tag) + data


def fragn(size, tag, offset8, data):
    return struct.pack(">HHB", 0xe000 | size, tag, offset8) + data


# IPHC (link-local, addresses from the MAC header), UDP inline, then bytes.
IPHC = bytes([0x7a, 0x33, 0x11]) + struct.pack(">HHHH", 5683, 5683, 60, 0)

CASES = [
    # name, what, frames, expert wanted on (frame indexes), must not complete
    ("size-zero", "FRAG1 with datagram_size 0", [frag1(0, 1, IPHC + b"A" * 40)], [0], True),
    ("size-smaller", "a FRAGN ending past datagram_size 64",
     [frag1(64, 2, IPHC + b"B" * 40), fragn(64, 2, 6, b"C" * 48)], [0, 1], True),
    ("overlap-conflict", "two FRAGNs at the same offset with different bytes",
     [frag1(120, 3, IPHC + b"D" * 40), fragn(120, 3, 6, b"E" * 40), fragn(120, 3, 6, b"F" * 40),
      fragn(120, 3, 11, b"G" * 32)], [], False),
]


def main():
    sandbox, so = sys.argv[1:3]
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        os.chmod(tmp, 0o755)
        cap = os.path.join(tmp, "frag.pcap")
        numbers, n, seq = [], 0, 0
        with open(cap, "wb") as f:
            f.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 195))
            for name, _, frames, _, _ in CASES:
                nums = []
                for payload in frames:
                    n += 1
                    seq += 1
                    pkt = frame(seq & 0xff, payload)
                    f.write(struct.pack("<IIII", 1772359200 + n, 0, len(pkt), len(pkt)) + pkt)
                    nums.append(n)
                numbers.append(nums)
        os.chmod(cap, 0o644)
        out = subprocess.run([sandbox, so, "-n", "-r", cap, "-2", "-T", "fields", "-E", "separator=\t",
                              "-e", "frame.number", "-e", "_ws.malformed", "-e", "_ws.expert.message",
                              "-e", "meter.frag.complete"], capture_output=True, text=True)
        rows = {int(v[0]): v[1:] for v in (line.split("\t") for line in out.stdout.splitlines())}
        if out.returncode != 0:
            print("FAIL  tshark exited %d: %s" % (out.returncode, out.stderr[-300:]))
            failures += 1
        for (name, what, _, expert_on, never_complete), nums in zip(CASES, numbers):
            problems = []
            for i, num in enumerate(nums):
                malformed, experts, complete = (rows.get(num, ["", "", ""]) + ["", "", ""])[:3]
                if "Meter" in malformed:
                    problems.append("frame %d: the meter dissector threw" % num)
                if i in expert_on and "datagram_size" not in experts:
                    problems.append("frame %d: no bad_size expert info (%s)" % (num, experts))
                if never_complete and complete in ("1", "True"):
                    problems.append("frame %d: counted complete" % num)
            print("%s  %-17s %s%s" % ("ok   " if not problems else "FAIL ", name, what,
                                      "" if not problems else ": " + "; ".join(problems)))
            failures += bool(problems)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
