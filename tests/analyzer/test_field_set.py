#!/usr/bin/env python3
"""test_field_set.py METERSCOPE METER_SIM: the analyser on the field-scale set
(a 512 kB image at SZX 1..6 over a ~5% bursty link, regenerated here):
every transfer's numbers equal the generator's truth, and the comparison of
the six captures, analysed together with -j 2, has the field report's shape:
rates in the same order by SZX as the field table's, each within 30% of it."""
import json
import os
import subprocess
import sys
import tempfile

from analyser_run import Analyser, prefs_args
from ota_compare import as_tsv_row, differences
import tshark_view as tv

HERE = os.path.dirname(os.path.abspath(__file__))

# ../shared/meter-protocol.md, "Field reference": effective rate by SZX (B/s).
FIELD = {6: 809, 5: 713, 4: 458, 3: 239, 2: 150, 1: 68}


def main():
    binary, sim = sys.argv[1:3]
    failures = 0
    a = Analyser(binary)
    try:
        with tempfile.TemporaryDirectory() as gen:
            subprocess.run([os.path.join(HERE, "..", "..", "captures", "make-field-set.sh"), sim, gen], check=True,
                           capture_output=True)
            caps = [a.copy(os.path.join(gen, "field-szx%d.pcap" % s)) for s in sorted(FIELD)]
            truths = [tv.load_truth(os.path.join(gen, "field-szx%d.pcap" % s)) for s in sorted(FIELD)]
        res = a.run(prefs_args(truths[0]) + ["--no-progress", "-j", "2", "--format", "json"] + caps)
        if res.returncode != 0:
            print("FAIL  meterscope exited %d: %s" % (res.returncode, res.stderr.strip()))
            return 1
        report = json.loads(res.stdout)
    finally:
        a.close()
    rates = {}
    for cap, truth in zip(report["captures"], truths):
        for x in truth["transfers"]:
            oa = x["on_air"]
            match = [t for t in cap["transfers"] if t["first_request_us"] == oa["first_request_us"]
                     and t["path"] == x["uri_path"]]
            diff = differences(as_tsv_row(match[0]), x) if len(match) == 1 else ["reported %d times" % len(match)]
            print("%s  %s transfer %d: %s" % ("ok   " if not diff else "FAIL ", os.path.basename(cap["file"]),
                                             x["id"], "every number equal" if not diff else "; ".join(diff)))
            failures += bool(diff)
            if len(match) == 1 and x["uri_path"].startswith("/firmware"):
                rates[match[0]["szx"]] = match[0]["rate_Bps"]
    order = sorted(rates, key=lambda s: rates[s])
    field_order = sorted(FIELD, key=lambda s: FIELD[s])
    ok = order == field_order
    print("%s  rates in the field table's order by SZX: %s" % ("ok   " if ok else "FAIL ",
                                                             ", ".join("SZX %d %.0f" % (s, rates[s]) for s in order)))
    failures += not ok
    for s in sorted(FIELD):
        ok = s in rates and abs(rates[s] / FIELD[s] - 1) <= 0.30
        print("%s  SZX %d: %.0f B/s against the field's %d (%+.0f%%)" % ("ok   " if ok else "FAIL ", s,
              rates.get(s, 0), FIELD[s], 100 * (rates.get(s, 0) / FIELD[s] - 1)))
        failures += not ok
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
