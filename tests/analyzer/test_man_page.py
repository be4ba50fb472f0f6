#!/usr/bin/env python3
"""test_man_page.py METERSCOPE MAN_PAGE: meterscope(1) documents exactly the
options `meterscope --help` lists, short and long, and its exit statuses
(0-3, and 128+N after signal N)."""
import re
import subprocess
import sys


def main():
    binary, page = sys.argv[1:3]
    help_text = subprocess.run([binary, "--help"], capture_output=True, text=True, check=True).stdout
    with open(page) as f:
        man = f.read().replace("\\-", "-")
    failures = 0
    help_long = set(re.findall(r"^\s+(?:-\w, )?(--[a-z][a-z-]*)", help_text, re.M))
    help_short = set(re.findall(r"^\s+(-\w), --", help_text, re.M))
    man_long = set(re.findall(r'^\.BR? (?:-\w ", " )?(--[a-z][a-z-]*)', man, re.M))
    man_short = set(re.findall(r'^\.BR? (-\w) ", " --', man, re.M))
    for what, want, have in (("long", help_long, man_long), ("short", help_short, man_short)):
        ok = want == have and want
        print("%s  %s options: --help %s, man page %s" % ("ok   " if ok else "FAIL ", what,
                                                          sorted(want), sorted(have)))
        failures += not ok
    statuses = set(re.findall(r"\b([0-3]) (?:report|usage|input|tshark)", help_text))
    documented = set(re.findall(r"^\.TP\n\.B ([0-9])$", man, re.M))
    ok = statuses == documented and len(statuses) == 4
    print("%s  exit statuses: --help %s, man page %s" % ("ok   " if ok else "FAIL ", sorted(statuses),
                                                         sorted(documented)))
    failures += not ok
    # Stopped by a signal: 128 + its number, in both.
    ok = "128+N stopped by signal N" in help_text and re.search(r"^\.TP\n\.B 128\+N$", man, re.M) is not None
    print("%s  the signal exit status 128+N in --help and the man page" % ("ok   " if ok else "FAIL "))
    failures += not ok
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
