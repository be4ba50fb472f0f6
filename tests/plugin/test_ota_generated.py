#!/usr/bin/env python3
"""test_ota_generated.py SANDBOX PLUGIN_SO METER_SIM: test_ota_vs_truth on fresh
captures: every scenario with seeds other than the committed ones, and a
few link types, so the comparison is not tuned to the committed files."""
import os
import subprocess
import sys
import tempfile

RUNS = [(s, seed, "195") for s in ("default", "multihop", "secure", "busy", "router", "openthread",
                                   "two-meters", "bernoulli", "renegotiate", "edge-szx7",
                                   "edge-szx0-empty", "repeat", "slow-backhaul", "slow-lossy") for seed in (31, 32)]
RUNS += [("two-meters", 33, "zep"), ("secure", 33, "283"), ("multihop", 33, "gateway"),
         ("slow-backhaul", 33, "gateway"), ("slow-lossy", 33, "gateway"), ("repeat", 33, "gateway")]


def main():
    sandbox, so, sim = sys.argv[1:4]
    here = os.path.dirname(os.path.abspath(__file__))
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        for scenario, seed, link in RUNS:
            cap = os.path.join(tmp, "%s-%d-%s.pcap" % (scenario, seed, link))
            subprocess.run([sim, "--scenario", scenario, "--seed", str(seed), "--link", link, "--quiet",
                            "--output", cap], check=True)
            out = subprocess.run([sys.executable, os.path.join(here, "test_ota_vs_truth.py"), sandbox, so, cap],
                                 capture_output=True, text=True)
            n = out.stdout.count("\n")
            print("%s  %s seed %d link %s: %d transfers" % ("ok   " if out.returncode == 0 else "FAIL ",
                                                            scenario, seed, link, n))
            if out.returncode:
                print("".join("      " + ln + "\n" for ln in out.stdout.splitlines() if ln.startswith("FAIL")))
            failures += out.returncode != 0
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
