#!/usr/bin/env python3
"""file_lengths.py [ROOT] [LIMIT]: no C file under plugin/ or analyzer/ is
longer than LIMIT lines (900): a file that grows past it holds more than one
concern and is split by concern, its functions moved whole. Prints the
longest files and any over the limit; exit 1 if there is one. Run by ctest
as tree.file_lengths."""
import os
import sys

FOLDERS = ("plugin", "analyzer")


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", ".."))
    limit = int(sys.argv[2]) if len(sys.argv) > 2 else 900
    lengths = []
    for folder in FOLDERS:
        for dirpath, _dirs, files in os.walk(os.path.join(root, folder)):
            for f in files:
                if f.endswith((".c", ".h")):
                    path = os.path.join(dirpath, f)
                    with open(path, encoding="utf-8", errors="replace") as fh:
                        lengths.append((sum(1 for _ in fh), os.path.relpath(path, root)))
    if not lengths:
        print("file_lengths: no C files under %s in %s" % (" or ".join(FOLDERS), root))
        return 1
    lengths.sort(reverse=True)
    over = [(n, p) for n, p in lengths if n > limit]
    for n, p in lengths[:5]:
        print("%6d  %s" % (n, p))
    for n, p in over:
        print("OVER  %s: %d lines (limit %d)" % (p, n, limit))
    print("file_lengths: %d files, the longest %d lines, %d over %d" % (len(lengths), lengths[0][0], len(over), limit))
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
