#!/usr/bin/env python3
"""test_timestamp_modes.py METERSCOPE METER_SIM: the same simulated run stamped
the three ways sniffers stamp frames (meter-sim --timestamp end, start, host)
gives the same report. On every scenario, over the link types: the plugin
reads what the stamps mark from the frame-ACK gaps; every on-air count equals
the truth in every mode, and so do the times when stamps mark a frame's start
or end (within a host's latency for host stamps); the block-size model's
loss and frame inputs are the same in all three modes and its time inputs the
same for start and end stamps (for host stamps within the latency spread
per hop of a block); and they are those docs/recommendation.md gives from the
truth's numbers of the transfer the model must be measured on (the truth's
complete download with the most bytes): the loss and frame inputs in every
mode, the time inputs with start and end stamps (the parts an estimate moves
time between within the truth's bound for it)."""
import json
import os
import subprocess
import sys

from analyser_run import Analyser, prefs_args
from checks import Checks
from ota_compare import HOST_SPAN_S, as_tsv_row, differences, estimate_tolerances
import tshark_view as tv

RUNS = [("default", "195"), ("multihop", "230"), ("secure", "283"), ("busy", "zep"), ("router", "195"),
        ("openthread", "283"), ("two-meters", "230"), ("bernoulli", "zep"), ("renegotiate", "195"),
        ("repeat", "283"), ("slow-backhaul", "zep"), ("slow-lossy", "230")]
MODES = ["end", "start", "host"]
LOSS_INPUTS = ["exchange_loss", "response_frames", "block_overhead_bytes", "request_loss", "first_frame_loss",
               "later_frame_loss", "added_frame_loss", "hops"]
TIME_INPUTS = ["air_s_per_block", "network_s_per_block", "turnaround_s_per_block", "timeouts_s_per_block"]

check = Checks()


def ratio(a, b, none):
    return a / b if b > 0 else none


def truth_basis(truth):
    """The transfer the model is measured on, by the truth: complete before
    incomplete, a download before an upload, then the most bytes (the first
    of equals); one with blocks, requests, frames and time."""
    best = None
    for x in sorted(truth["transfers"], key=lambda x: x["on_air"]["first_request_us"] or 0):
        oa = x["on_air"]
        if not (oa["blocks"] and oa["requests"] and oa["frames_sent"] and oa["duration_s"]):
            continue
        key = (2 * oa["complete"] + (x["kind"] == "block2"), oa["bytes"])
        if best is None or key > best[0]:
            best = (key, x)
    return best[1] if best else None


def truth_inputs(x):
    """The model's inputs from the truth's on_air numbers of transfer x
    (docs/recommendation.md, "Inputs"): {name: (value, tolerance)}."""
    oa = x["on_air"]
    upload = x["kind"] == "block1"
    req_ok = oa["request_copies"] - min(oa["request_copies_lost"], oa["request_copies"])
    resp_ok = oa["response_copies"] - min(oa["response_copies_lost"], oa["response_copies"])
    later_lost = oa["response_copies_lost"] - min(oa["response_first_lost"], oa["response_copies_lost"])
    resp_frames = ratio(oa["response_frames_complete"], resp_ok, 1)
    req_frames = ratio(oa["request_frames_complete"], req_ok, 1)
    blocks = oa["blocks"]
    tol = estimate_tolerances(oa)
    loss = {"exchange_loss": min(1.0, (oa["retransmissions"] + oa["rerequests"]) / oa["requests"]),
            "response_frames": req_frames if upload else resp_frames,
            "request_loss": ratio(oa["request_copies_lost"], oa["request_copies"], 0),
            "first_frame_loss": ratio(oa["response_first_lost"], oa["response_copies"], 0),
            "later_frame_loss": ratio(later_lost, oa["response_later_frames"], -1),
            "hops": max(1.0, ratio(oa["request_copies"], oa["requests"], 1))}
    times = {"air_s_per_block": (oa["time_air_s"], 0),
             "network_s_per_block": (oa["time_network_s"], tol.get("time_network_s", 0)),
             "turnaround_s_per_block": (oa["time_turnaround_s"], tol.get("time_turnaround_s", 0)),
             "timeouts_s_per_block": (oa["time_timeouts_s"] + oa["time_unseen_s"],
                                      tol.get("time_timeouts_s", 0) + tol.get("time_unseen_s", 0))}
    return {k: (v, 1e-9) for k, v in loss.items()}, \
        {k: (v / blocks, (t + 2e-6) / blocks) for k, (v, t) in times.items()}


def check_inputs(name, mode, rec, transfers, truth):
    """The recommendation's transfer and inputs against the truth's."""
    x = truth_basis(truth)
    t = [t for t in transfers if rec and t["transfer"] == rec["transfer"]]
    if x is None or rec is None or len(t) != 1:
        check(x is None and rec is None, "%s: a recommendation where the truth has a transfer to measure (%s, %s)"
              % (name, x and x["id"], rec and rec["transfer"]))
        return
    check(not differences(as_tsv_row(t[0]), x, mode), "%s: the recommendation's transfer %d is the truth's "
          "transfer %d (the complete download with the most bytes)" % (name, rec["transfer"], x["id"]))
    loss, times = truth_inputs(x)
    diff = []
    for k, (want, tol) in list(loss.items()) + (list(times.items()) if mode != "host" else []):
        got = rec[k] if rec[k] is not None else -1
        if abs(got - want) > tol + 1e-9 * abs(want):
            diff.append("%s %.6f != %.6f" % (k, got, want))
    check(not diff, "%s: the block-size model's inputs are the truth's%s" % (name, (": " + "; ".join(diff)) if diff
                                                                            else ""))


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
                check_inputs(name, mode, c["recommendation"], c["transfers"], truth)
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
