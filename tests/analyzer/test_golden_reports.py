#!/usr/bin/env python3
"""The analyser's reports on the committed captures, byte for byte, against
the reports a reviewed revision wrote (tests/analyzer/golden/).

This is a regression guard, not a truth: the truth tests say whether the
numbers are right; this one says that a change meant to keep behaviour
(a refactoring) kept every byte. When a change is meant to alter a
report, rerun with --update and say in the commit what changed and why.

usage: test_golden_reports.py MESCOPE_CLI COMMITTED_DIR GOLDEN_DIR [--update]
(by hand, with PYTHONPATH=tests/lib for its helpers)
"""
import difflib
import glob
import json
import os
import sys

from analyser_run import Analyser, prefs_args

FORMATS = (("table", "txt"), ("csv", "csv"), ("json", "json"))


def reports(analyser, captures):
    """(name, text) of every report: one per capture and format, and the
    comparison of all captures in one run."""
    copies = [analyser.copy(c) for c in captures]
    every_pref = []
    for cap, copy in zip(captures, copies):
        base = os.path.basename(cap)
        with open(cap + ".truth.json") as f:
            truth = json.load(f)
        # The context prefixes and keys the capture needs, as a user gives them.
        prefs = prefs_args(truth)
        if truth.get("security"):
            prefs += ["--key", truth["network_key"]]
        for opt, value in zip(prefs[::2], prefs[1::2]):
            if value not in every_pref:
                every_pref += [opt, value]
        for fmt, ext in FORMATS:
            r = analyser.run(["--no-progress", "-j", "1", "-f", fmt] + prefs + [os.path.basename(copy)])
            yield "%s.%s" % (base, ext), "exit %d\n%s--- stderr\n%s" % (r.returncode, r.stdout, r.stderr)
    r = analyser.run(["--no-progress", "-j", "2"] + every_pref + [os.path.basename(c) for c in copies])
    yield "all.txt", "exit %d\n%s--- stderr\n%s" % (r.returncode, r.stdout, r.stderr)


def main():
    update = "--update" in sys.argv
    args = [a for a in sys.argv[1:] if a != "--update"]
    if len(args) != 3:
        sys.exit(__doc__)
    cli, committed, golden = args
    captures = sorted(glob.glob(os.path.join(committed, "*.pcap")))
    if not captures:
        sys.exit("no captures in %s" % committed)
    analyser = Analyser(cli)
    failed = 0
    try:
        for name, text in reports(analyser, captures):
            path = os.path.join(golden, name)
            if update:
                with open(path, "w") as f:
                    f.write(text)
                continue
            try:
                with open(path) as f:
                    want = f.read()
            except FileNotFoundError:
                print("FAIL %s: no golden report (run with --update)" % name)
                failed += 1
                continue
            if want != text:
                failed += 1
                print("FAIL %s differs:" % name)
                sys.stdout.writelines(list(difflib.unified_diff(want.splitlines(True), text.splitlines(True),
                                                                "golden", "now", n=1))[:40])
            else:
                print("ok   %s" % name)
    finally:
        analyser.close()
    if update:
        print("golden reports written to %s" % golden)
        return 0
    print("%d report(s) differ" % failed if failed else "every report identical")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
