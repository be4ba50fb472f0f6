#!/usr/bin/env python3
"""test_sniffer_bounds.py SANDBOX PLUGIN_SO METER_SIM: the counts stay right
when the sniffer misses frames. The same simulation written by a perfect
sniffer and by ones that missed 1%, 5% and 20% of the frames (meter-sim
--sniffer-miss; the run is the same, only the capture differs), on every
radio link type and timestamp mode: each per-transfer count of the
imperfect capture equals the perfect capture's or lies in the range its
record gives (tests/lib/sniffer_bounds.py: lower bounds at most
frames_missed_high too low, losses at most the uncertain column too high);
the frames shown missed never exceed what the generator's truth says the
sniffer did not capture; the perfect capture shows none. Also bursts of
misses and a sniffer at the border router."""
import json
import os
import subprocess
import sys
import tempfile

import sniffer_bounds
import tshark_view as tv
from checks import Checks

check = Checks()
LINKS = ("195", "230", "283", "zep")
STAMPS = ("end", "start", "host")
MISSES = ("0.01", "0.05", "0.2")


def records(sandbox, so, cap, truth):
    prefs = [a for p in truth.get("wireshark_prefs", []) for a in ("-o", p)]
    out = subprocess.run([sandbox, so, "-n", "-r", cap, "-q", "-z", "meter,ota,tsv"] + prefs, check=True,
                         capture_output=True, text=True).stdout
    return tv.ota_tsv(out)[0]


def generate(sim, cap, args):
    subprocess.run([sim, "--seed", "3", "--quiet", "--output", cap] + args, check=True)
    with open(cap + ".truth.json") as f:
        return json.load(f)


def compare(name, perfect, rows, truth):
    check(len(rows) == len(perfect), "%s: the perfect capture's %d transfers (%d)" % (name, len(perfect), len(rows)))
    bad = []
    for r, p in zip(rows, perfect):
        bad += ["transfer %s: %s" % (r["transfer"], v) for v in sniffer_bounds.violations(r, p)]
    check(not bad, "%s: every count equals the perfect sniffer's or its range holds it%s"
          % (name, "" if not bad else ": " + "; ".join(bad)))
    missed = sum(x["not_captured"]["frames"] for x in truth["transfers"])
    shown = sum(int(r["frames_missed_by_sniffer"]) for r in rows)
    check(shown <= missed, "%s: frames shown missed %d, at most the %d the truth did not capture"
          % (name, shown, missed))


def main():
    sandbox, so, sim = sys.argv[1:4]
    with tempfile.TemporaryDirectory() as tmp:
        cap = os.path.join(tmp, "c.pcap")
        # (name, the simulation, what the imperfect sniffer adds to its misses)
        cases = [("link %s, stamps %s" % (l, s), ["--link", l, "--timestamp", s], []) for l in LINKS for s in STAMPS]
        cases += [("bursts of 5", [], ["--sniffer-burst", "5"]),
                  ("at the border router", ["--sniffer-at", "border-router"], []),
                  ("far nodes missed more", ["--meters", "3", "--hops", "2"], ["--sniffer-far-miss", "0.3"])]
        for name, args, more in cases:
            truth = generate(sim, cap, args)
            perfect = records(sandbox, so, cap, truth)
            check(all(int(r["frames_missed_by_sniffer"]) == 0 and int(r["frames_missed_estimate"]) == 0
                      for r in perfect), "%s: the perfect capture shows no frame missed" % name)
            for miss in MISSES:
                truth = generate(sim, cap, args + more + ["--sniffer-miss", miss])
                compare("%s, %s%% missed" % (name, float(miss) * 100), perfect, records(sandbox, so, cap, truth),
                        truth)
    return check.summary("test_sniffer_bounds")


if __name__ == "__main__":
    sys.exit(main())
