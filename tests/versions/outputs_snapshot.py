#!/usr/bin/env python3
"""PYTHONPATH=tests/lib outputs_snapshot.py BUILD OUT_DIR: everything a user sees of meterscope on
every committed capture and every real one in ../shared/captures-real, one
file per capture and view in OUT_DIR, for `diff -r` between two revisions
(a refactoring must leave every byte as it was):
- tshark -2 -V -O meter,meter-fw (the trees of every frame, later passes);
- tshark -q -z meter,ota, -z meter,ota,tsv and -z meter,ota_table;
- tshark -q --export-objects meter-fw (the files' names and SHA-256);
- the analyser's table, CSV and JSON.
BUILD is a build folder (its plugin/meterscope.so and analyzer/meterscope).
Run on one Wireshark; the versions are compared elsewhere
(tests/versions/compare_reports.py)."""
import glob
import hashlib
import json
import os
import subprocess
import sys
import tempfile

from analyser_run import Analyser

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
SANDBOX = os.path.join(ROOT, "tests", "tshark-sandbox")
sys.path.insert(0, HERE)
from analyser_reports import committed, real  # noqa: E402


def tshark_args(args):
    """The analyser's -O/--key options as tshark's -o."""
    out, it = [], iter(args)
    for a in it:
        v = next(it)
        if a == "-O":
            out += ["-o", v]
        elif a == "--key":
            out += ["-o", 'uat:ieee802154_keys:"%s","1","Thread hash"' % v]
    return out


def main():
    build, out_dir = sys.argv[1:3]
    so = os.path.join(build, "plugin", "meterscope.so")
    os.makedirs(out_dir, exist_ok=True)
    a = Analyser(os.path.join(build, "analyzer", "meterscope"))
    try:
        for cap, args in list(committed()) + list(real()):
            name = os.path.basename(cap)
            targs = tshark_args(args)
            views = {
                "V": ["-2", "-V", "-O", "meter,meter-fw"],
                "ota": ["-q", "-z", "meter,ota"],
                "tsv": ["-q", "-z", "meter,ota,tsv"],
                "table": ["-q", "-z", "meter,ota_table"],
            }
            for view, extra in views.items():
                res = subprocess.run([SANDBOX, so, "-n", "-r", cap] + targs + extra, capture_output=True, text=True)
                with open(os.path.join(out_dir, "%s.%s" % (name, view)), "w") as f:
                    f.write("exit %d\n%s--- stderr\n%s" % (res.returncode, res.stdout, res.stderr))
            with tempfile.TemporaryDirectory() as objects:
                os.chmod(objects, 0o777)
                res = subprocess.run([SANDBOX, so, "-n", "-r", cap] + targs +
                                     ["-q", "--export-objects", "meter-fw," + objects], capture_output=True, text=True)
                lines = ["exit %d" % res.returncode]
                for f in sorted(os.listdir(objects)):
                    with open(os.path.join(objects, f), "rb") as g:
                        lines.append("%s %s" % (hashlib.sha256(g.read()).hexdigest(), f))
                with open(os.path.join(out_dir, name + ".objects"), "w") as f:
                    f.write("\n".join(lines) + "\n")
            a.copy(cap)
            for fmt in ("table", "csv", "json"):
                res = a.run(args + ["--no-progress", "-j", "1", "-f", fmt, name])
                with open(os.path.join(out_dir, "%s.analyser.%s" % (name, fmt)), "w") as f:
                    f.write("exit %d\n%s--- stderr\n%s" % (res.returncode, res.stdout, res.stderr))
    finally:
        a.close()
    print("outputs_snapshot: %d files in %s" % (len(os.listdir(out_dir)), out_dir))
    return 0


if __name__ == "__main__":
    sys.exit(main())
