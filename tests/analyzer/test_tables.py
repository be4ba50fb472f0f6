#!/usr/bin/env python3
"""test_tables.py SANDBOX PLUGIN_SO METERSCOPE COMMITTED_DIR: tables a person
reads. `tshark -z meter,ota` shows every transfer's meter and path whole, as
the generator's truth has them; the analyser's table does too, and its
comparison of several captures puts each transfer under its own path and kind
(a history upload is not compared with firmware downloads), as many under
each as the truth has."""
import collections
import os
import re
import subprocess
import sys

from analyser_run import Analyser
from checks import Checks
import tshark_view as tv

PREF = "6lowpan.context1:2001:db8:1::/64"
check = Checks()


def truth_transfers(cap):
    """(meter, path without its '/', kind) of each transfer a sniffer sees."""
    return [(x["meter"]["ipv6"], x["uri_path"].lstrip("/"), x["kind"]) for x in tv.load_truth(cap)["transfers"]
            if x["on_air"]["requests"] > 0]


def main():
    sandbox, so, binary, committed = sys.argv[1:5]
    caps = [os.path.join(committed, n) for n in ("default.pcap", "two-meters.pcap")]
    rows = []
    for cap in caps:
        want = truth_transfers(cap)
        rows += want
        table = subprocess.run([sandbox, so, "-n", "-r", cap, "-o", PREF, "-q", "-z", "meter,ota"],
                               capture_output=True, text=True, check=True).stdout
        got = [(m.group(1), m.group(2)) for m in re.finditer(r"^\d+\s+(\S+) /(\S+)\s+\d{4}-", table, re.M)]
        for meter, path, _ in want:
            check(got.count((meter, path)) == sum(1 for w in want if w[:2] == (meter, path)),
                  "-z meter,ota on %s: '%s /%s' whole, once per transfer of the truth"
                  % (os.path.basename(cap), meter, path))
        check(len(got) == len(want), "-z meter,ota on %s: %d transfers, the truth's %d"
              % (os.path.basename(cap), len(got), len(want)))
    a = Analyser(binary)
    try:
        names = [os.path.basename(a.copy(c)) for c in caps]
        out = a.run(["--no-progress", "-O", PREF] + names).stdout
    finally:
        a.close()
    got = collections.Counter((m.group(1), m.group(2))
                              for m in re.finditer(r"^\d+\s+(\S+)\s+/(\S+)\s+\d+\s", out, re.M))
    want = collections.Counter(r[:2] for r in rows)
    for meter, path in sorted(want):
        check(got[(meter, path)] == want[(meter, path)], "the analyser's table has %s and /%s whole, %d time(s) (the "
              "truth: %d)" % (meter, path, got[(meter, path)], want[(meter, path)]))
    check(sum(got.values()) == sum(want.values()), "the analyser's table: %d transfers, the truth's %d"
          % (sum(got.values()), sum(want.values())))
    comparison = out.split("Comparison", 1)[1] if "Comparison" in out else ""
    groups, group = {}, None
    for line in comparison.splitlines()[1:]:
        m = re.match(r"^(/\S+) \((block1|block2)\)$", line)
        if m:
            group = (m.group(1)[1:], m.group(2))
            check(group not in groups, "the comparison has one group for %s (%s)" % group)
            groups[group] = 0
        elif re.match(r"^\s+\d+\s+\d+\s", line) and group:
            groups[group] += 1
    for key in sorted({(r[1], r[2]) for r in rows}):
        n = sum(1 for r in rows if (r[1], r[2]) == key)
        check(groups.get(key) == n, "comparison: %d transfer(s) of /%s (%s) under their own heading, %s found"
              % (n, key[0], key[1], groups.get(key)))
    check(len(groups) == len({(r[1], r[2]) for r in rows}), "comparison: the truth's %d groups, %d found"
          % (len({(r[1], r[2]) for r in rows}), len(groups)))
    return check.summary("tables")


if __name__ == "__main__":
    sys.exit(main())
