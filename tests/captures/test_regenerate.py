#!/usr/bin/env python3
"""test_regenerate.py METER_SIM COMMITTED_DIR LIST: every committed capture and
truth file is exactly what meter-sim makes from committed.list today (same
seed, same bytes), a second run is byte-identical, and another seed differs."""
import filecmp
import os
import subprocess
import sys
import tempfile


def entries(list_path):
    with open(list_path) as f:
        for line in f:
            line = line.strip()
            if line and not line.startswith("#"):
                name, *args = line.split()
                yield name, args


def main():
    sim, committed, list_path = sys.argv[1:4]
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        for name, args in entries(list_path):
            out = os.path.join(tmp, name + ".pcap")
            subprocess.run([sim, *args, "--quiet", "--output", out], check=True)
            for suffix in ("", ".truth.json"):
                same = filecmp.cmp(out + suffix, os.path.join(committed, name + ".pcap" + suffix),
                                   shallow=False)
                print(("ok    " if same else "FAIL  ") + name + ".pcap" + suffix + " regenerates identically")
                failures += not same
        again = os.path.join(tmp, "again.pcap")
        other = os.path.join(tmp, "other.pcap")
        name, args = next(entries(list_path))
        subprocess.run([sim, *args, "--quiet", "--output", again], check=True)
        subprocess.run([sim, *args, "--seed", "999", "--quiet", "--output", other], check=True)
        same = filecmp.cmp(again, os.path.join(tmp, name + ".pcap"), shallow=False)
        differs = not filecmp.cmp(other, again, shallow=False)
        print(("ok    " if same else "FAIL  ") + "same seed, byte-identical capture")
        print(("ok    " if differs else "FAIL  ") + "another seed, another capture")
        failures += (not same) + (not differs)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
