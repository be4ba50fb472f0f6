#!/usr/bin/env python3
"""test_tables.py SANDBOX PLUGIN_SO METERSCOPE COMMITTED_DIR: tables a person
reads. `tshark -z meter,ota` shows every transfer's meter and path whole,
as its TSV gives them; the analyser's table does too, and its comparison
of several captures puts each transfer under its own path and kind (a
history upload is not compared with firmware downloads)."""
import os
import re
import subprocess
import sys

from analyser_run import Analyser
from checks import Checks
import tshark_view as tv

PREF = "6lowpan.context1:2001:db8:1::/64"
check = Checks()


def main():
    sandbox, so, binary, committed = sys.argv[1:5]
    caps = [os.path.join(committed, n) for n in ("default.pcap", "two-meters.pcap")]
    rows = []
    for cap in caps:
        base = [sandbox, so, "-n", "-r", cap, "-o", PREF, "-q", "-z"]
        table = subprocess.run(base + ["meter,ota"], capture_output=True, text=True, check=True).stdout
        tsv = tv.ota_tsv(subprocess.run(base + ["meter,ota,tsv"], capture_output=True, text=True, check=True).stdout)[0]
        for r in tsv:
            want = "%s /%s" % (r["meter"], r["path"].lstrip("/"))
            line = [ln for ln in table.splitlines() if re.match(r"^%s\s" % r["transfer"], ln)]
            check(len(line) == 1 and want in line[0], "-z meter,ota on %s, transfer %s: '%s' whole"
                  % (os.path.basename(cap), r["transfer"], want))
            rows.append(dict(r, path=r["path"].lstrip("/")))
    a = Analyser(binary)
    try:
        names = [os.path.basename(a.copy(c)) for c in caps]
        out = a.run(["--no-progress", "-O", PREF] + names).stdout
    finally:
        a.close()
    for r in rows:
        check(re.search(r"^\d+\s+%s\s+/%s\s" % (re.escape(r["meter"]), re.escape(r["path"])), out, re.M) is not None,
              "the analyser's table has %s and /%s whole" % (r["meter"], r["path"]))
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
    for key in sorted({(r["path"], r["kind"]) for r in rows}):
        n = sum(1 for r in rows if (r["path"], r["kind"]) == key)
        check(groups.get(key) == n, "comparison: %d transfer(s) of /%s (%s) under their own heading, %s found"
              % (n, key[0], key[1], groups.get(key)))
    return check.summary("tables")


if __name__ == "__main__":
    sys.exit(main())
