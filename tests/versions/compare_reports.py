#!/usr/bin/env python3
"""compare_reports.py LABEL=DIR LABEL=DIR...: the analyser's JSON reports made
against different Wireshark versions (analyser_reports.py) are byte for byte
the same, capture by capture; the first directory is the reference. A capture
missing from any directory fails too."""
import os
import sys


def main():
    dirs = [arg.split("=", 1) for arg in sys.argv[1:]]
    if len(dirs) < 2:
        print("usage: compare_reports.py LABEL=DIR LABEL=DIR...")
        return 1
    names = sorted(set().union(*(os.listdir(d) for _, d in dirs)))
    passed = failed = 0
    ref_label, ref_dir = dirs[0]
    for name in names:
        texts = {}
        for label, d in dirs:
            path = os.path.join(d, name)
            texts[label] = open(path).read() if os.path.exists(path) else None
        ref = texts[ref_label]
        differ = [label for label, t in texts.items() if t != ref or t is None]
        if differ:
            failed += 1
            print("FAIL  %s: differs from %s on %s" % (name, ref_label, ", ".join(differ)))
        else:
            passed += 1
            print("ok    %s: the same on %s" % (name, ", ".join(label for label, _ in dirs)))
    print("versions: %d passed, %d failed" % (passed, failed))
    return 1 if failed or not passed else 0


if __name__ == "__main__":
    sys.exit(main())
