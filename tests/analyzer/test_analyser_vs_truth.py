#!/usr/bin/env python3
"""test_analyser_vs_truth.py METERSCOPE CAPTURE: `meterscope --format json`
reports every transfer the generator's truth says a sniffer could see,
once, with every number of its `on_air` record equal (the same comparison
as the plugin's test), the CSV carries the same numbers, the time split
adds up to the duration, the progress points end at the byte count, and
`-Y meter.frag.incomplete` (a field later frames decide) selects exactly the
transfers the truth has an incomplete datagram in."""
import csv
import io
import json
import sys

from analyser_run import Analyser, prefs_args
from ota_compare import SPLIT, as_tsv_row, differences
import tshark_view as tv


def main():
    binary, capture = sys.argv[1:3]
    truth = tv.load_truth(capture)
    a = Analyser(binary)
    failures = 0
    try:
        cap = a.copy(capture)
        args = prefs_args(truth)
        if truth.get("security"):
            args += ["--key", truth["network_key"]]
        res = a.run(args + ["--no-progress", "--format", "json", cap])
        if res.returncode != 0:
            print("FAIL  meterscope exited %d: %s" % (res.returncode, res.stderr.strip()))
            return 1
        report = json.loads(res.stdout)
        assert report["format"] == "meterscope-report" and report["version"] == 2
        transfers = report["captures"][0]["transfers"]
        csv_res = a.run(args + ["--no-progress", "--format", "csv", cap])
        csv_rows = list(csv.DictReader(io.StringIO(csv_res.stdout)))
        # -Y on a field that only later frames decide (an incomplete datagram's
        # fragments): the transfers with an incomplete copy, by the truth.
        res = a.run(args + ["--no-progress", "--format", "csv", "-Y", "meter.frag.incomplete", cap])
        filtered = {(r["meter"], r["path"], int(r["first_request_us"]))
                    for r in csv.DictReader(io.StringIO(res.stdout))}
    finally:
        a.close()

    if len(csv_rows) != len(transfers):
        print("FAIL  CSV has %d rows, JSON %d transfers" % (len(csv_rows), len(transfers)))
        failures += 1
    for t, c in zip(transfers, csv_rows):
        for k in ("transfer", "blocks", "bytes", "requests", "retransmissions", "fragments_lost"):
            if str(t[k]) != c[k]:
                print("FAIL  CSV %s %s != JSON %s" % (k, c[k], t[k]))
                failures += 1
        parts = sum(t[k] for k in SPLIT)
        if abs(parts - t["duration_s"]) > 4e-6:
            print("FAIL  transfer %d: the time split adds up to %.6f, not %.6f" % (t["transfer"], parts,
                                                                                 t["duration_s"]))
            failures += 1
        blocks = [p for p in t["progress"] if p[2] == "block"]
        if t["bytes"] and (not blocks or blocks[-1][1] < t["bytes"]):
            print("FAIL  transfer %d: progress ends below %d bytes" % (t["transfer"], t["bytes"]))
            failures += 1
        repeats = sum(1 for p in t["progress"] if p[2] != "block")
        if repeats != t["retransmissions"] + t["rerequests"]:
            print("FAIL  transfer %d: %d repeat marks, %d repeats" % (t["transfer"], repeats,
                                                                   t["retransmissions"] + t["rerequests"]))
            failures += 1

    # The model reproduces what it was measured on: at its own block size the
    # predicted time per block is the measured one (docs/recommendation.md),
    # so the predicted rate is a full block per measured time per block.
    rec = report["captures"][0]["recommendation"]
    if rec:
        basis = next(t for t in transfers if t["transfer"] == rec["transfer"])
        own = next(p for p in rec["predictions"] if p["block_size"] == rec["block_size"])
        if basis["duration_s"]:
            want = rec["block_size"] * basis["blocks"] / basis["duration_s"]
            if abs(own["rate_Bps"] / want - 1) > 1e-6:
                print("FAIL  predicted %.3f B/s at the measured block size, measured %.3f" % (own["rate_Bps"], want))
                failures += 1

    unmatched = list(transfers)
    for x in [x for x in truth["transfers"] if x["on_air"]["requests"] > 0]:
        oa = x["on_air"]
        match = [t for t in unmatched if t["meter"] == x["meter"]["ipv6"] and t["path"] == x["uri_path"]
                 and t["first_request_us"] == oa["first_request_us"]]
        if len(match) != 1:
            print("FAIL  transfer %d (%s %s): reported %d times" % (x["id"], x["meter"]["name"], x["uri_path"],
                                                                 len(match)))
            failures += 1
            continue
        unmatched.remove(match[0])
        diff = differences(as_tsv_row(match[0]), x)
        print("%s  transfer %d (%s %s): %s" % ("ok   " if not diff else "FAIL ", x["id"], x["meter"]["name"],
                                              x["uri_path"], "every number equal" if not diff else "; ".join(diff)))
        failures += bool(diff)
    for t in unmatched:
        print("FAIL  transfer %d (%s %s) invented" % (t["transfer"], t["meter"], t["path"]))
        failures += 1
    want = {(x["meter"]["ipv6"], x["uri_path"], x["on_air"]["first_request_us"]) for x in truth["transfers"]
            if x["on_air"]["requests"] > 0 and x["on_air"]["datagrams_incomplete"] > 0}
    print("%s  -Y meter.frag.incomplete: %d transfers, the truth's with an incomplete datagram: %d"
          % ("ok   " if filtered == want else "FAIL ", len(filtered), len(want)))
    failures += filtered != want
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
