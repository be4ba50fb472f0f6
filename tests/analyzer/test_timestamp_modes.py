#!/usr/bin/env python3
"""test_timestamp_modes.py METERSCOPE METER_SIM: the same simulated run stamped
the three ways sniffers stamp frames (meter-sim --timestamp end, start, host)
gives the same report. On every scenario, over the link types: the plugin
reads what the stamps mark from the frame-ACK gaps; every on-air count equals
the truth in every mode, and so do the times when stamps mark a frame's start
or end (within a host's latency for host stamps); the block-size model's
loss and frame inputs are the same in all three modes and its time inputs the
same for start and end stamps (for host stamps within the latency spread
per hop of a block)."""
import json
import os
import subprocess
import sys

from analyser_run import Analyser, prefs_args
from checks import Checks
from ota_compare import HOST_SPAN_S, as_tsv_row, differences
import tshark_view as tv

RUNS = [("default", "195"), ("multihop", "230"), ("secure", "283"), ("busy", "zep"), ("router", "195"),
        ("openthread", "283"), ("two-meters", "230"), ("bernoulli", "zep"), ("renegotiate", "195"),
        ("repeat", "283"), ("slow-backhaul", "zep"), ("slow-lossy", "230")]
MODES = ["end", "start", "host"]
LOSS_INPUTS = ["exchange_loss", "response_frames", "block_overhead_bytes", "request_loss", "first_frame_loss",
               "later_frame_loss", "added_frame_loss", "hops"]
TIME_INPUTS = ["air_s_per_block", "network_s_per_block", "turnaround_s_per_block", "timeouts_s_per_block"]

check = Checks()


def main():
    binary, sim = sys.argv[1:3]
    a = Analyser(binary)
    try:
        for i, (scenario, link) in enumerate(RUNS):
            seed = 41 + i
            reports = {}
            for mode in MODES:
                cap = os.path.join(a.tmp, "%s-%s.pcap" % (scenario, mode))
                subprocess.run([sim, "--scenario", scenario, "--seed", str(seed), "--link", link, "--timestamp",
                                mode, "--quiet", "--output", cap], check=True)
                os.chmod(cap, 0o644)
                truth = tv.load_truth(cap)
                args = prefs_args(truth) + (["--key", truth["network_key"]] if truth.get("security") else [])
                res = a.run(args + ["--no-progress", "--format", "json", os.path.basename(cap)])
                name = "%s seed %d link %s, %s stamps" % (scenario, seed, link, mode)
                if res.returncode != 0:
                    check(False, "%s: meterscope exited %d: %s" % (name, res.returncode, res.stderr.strip()))
                    continue
                c = json.loads(res.stdout)["captures"][0]
                reports[mode] = c
                check(c["timestamps"]["mark"] == mode, "%s: read as %s stamps (%d of %d frame-ACK gaps fit)"
                      % (name, c["timestamps"]["mark"], c["timestamps"]["pairs_fit"], c["timestamps"]["pairs"]))
                bad = []
                visible = [x for x in truth["transfers"] if x["on_air"]["requests"] > 0]
                for x in visible:
                    rows = [as_tsv_row(t) for t in c["transfers"]
                            if t["meter"] == x["meter"]["ipv6"] and t["path"] == x["uri_path"]
                            and not differences(as_tsv_row(t), x, mode)]
                    if len(rows) != 1:
                        bad.append("transfer %d (%s)" % (x["id"], x["uri_path"]))
                check(not bad and len(c["transfers"]) == len(visible),
                      "%s: %d transfers, each equal to the truth%s" % (name, len(visible),
                                                                      (": not " + ", ".join(bad)) if bad else ""))
            if len(reports) != len(MODES):
                continue
            ref = reports["end"]["recommendation"]
            for mode in ("start", "host"):
                rec = reports[mode]["recommendation"]
                if ref is None or rec is None:
                    check(ref is None and rec is None, "%s %s: a recommendation in both or neither" % (scenario, mode))
                    continue
                diff = [k for k in LOSS_INPUTS + ["transfer", "block_size"] if rec[k] != ref[k]]
                for k in TIME_INPUTS:
                    # Host stamps: every hop of a block adds a request and a response stamp.
                    tol = 1e-9 if mode == "start" else 2 * HOST_SPAN_S * ref["hops"]
                    if abs(rec[k] - ref[k]) > tol:
                        diff.append("%s %.6f != %.6f" % (k, rec[k], ref[k]))
                check(not diff, "%s seed %d: the block-size model's inputs with %s stamps are those with end "
                      "stamps%s" % (scenario, seed, mode, (": " + "; ".join(diff)) if diff else ""))
    finally:
        a.close()
    return check.summary("timestamp modes")


if __name__ == "__main__":
    sys.exit(main())
