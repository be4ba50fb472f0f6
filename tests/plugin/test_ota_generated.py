#!/usr/bin/env python3
"""test_ota_generated.py SANDBOX PLUGIN_SO METER_SIM: test_ota_vs_truth on fresh
captures: every scenario with seeds other than the committed ones, and a
few link types, so the comparison is not tuned to the committed files."""
import json
import os
import subprocess
import sys
import tempfile

RUNS = [(s, seed, "195") for s in ("default", "multihop", "secure", "busy", "router", "openthread",
                                   "two-meters", "bernoulli", "renegotiate", "edge-szx7",
                                   "edge-szx0-empty", "repeat", "slow-backhaul", "slow-lossy") for seed in (31, 32)]
RUNS += [("two-meters", 33, "zep"), ("secure", 33, "283"), ("multihop", 33, "gateway"),
         ("slow-backhaul", 33, "gateway"), ("slow-lossy", 33, "gateway"), ("repeat", 33, "gateway")]
# One block each way (docs/ground-truth.md, Transfer): a firmware image that
# fits one Block2 block is a one-block transfer; a history pack that fits one
# block goes without Block1 and is none. The truth must say so, and the plugin.
SINGLE_BLOCK = ["--image-size", "200", "--szx", "6", "--history-samples", "1", "--his-szx", "6"]
# (Radio only: on IP, one block has no turn-around to tell the vantage by.)
RUNS += [("default", 34, "195", SINGLE_BLOCK)]


def main():
    sandbox, so, sim = sys.argv[1:4]
    here = os.path.dirname(os.path.abspath(__file__))
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        for scenario, seed, link, *extra in RUNS:
            extra = extra[0] if extra else []
            cap = os.path.join(tmp, "%s-%d-%s.pcap" % (scenario, seed, link))
            subprocess.run([sim, "--scenario", scenario, "--seed", str(seed), "--link", link, "--quiet",
                            "--output", cap] + extra, check=True)
            if extra is SINGLE_BLOCK:
                with open(cap + ".truth.json") as f:
                    kinds = [(t["kind"], t["blocks"]) for t in json.load(f)["transfers"]]
                if kinds != [("block2", 1)]:
                    print("FAIL  single-block %s: the truth has transfers %s, not one of one block2 block"
                          % (link, kinds))
                    failures += 1
            out = subprocess.run([sys.executable, os.path.join(here, "test_ota_vs_truth.py"), sandbox, so, cap],
                                 capture_output=True, text=True)
            n = out.stdout.count("\n")
            print("%s  %s%s seed %d link %s: %d transfers" % ("ok   " if out.returncode == 0 else "FAIL ",
                                                              scenario, " (one block)" if extra else "", seed,
                                                              link, n))
            if out.returncode:
                print("".join("      " + ln + "\n" for ln in out.stdout.splitlines() if ln.startswith("FAIL")))
            failures += out.returncode != 0
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
