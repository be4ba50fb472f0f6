#!/usr/bin/env python3
"""sweep_knob.py: runs meter-sim for each setting of one knob and each seed,
and prints, per setting, what the ground truth says about meter0's firmware
download: effective rate, duration and outcome per seed, their medians, and
the numbers behind them (fragments per response, the share of response and
request copies lost on a hop, the time spent waiting for CoAP timeouts).

  tests/bench/sweep_knob.py --scenario busy-field --knob szx --values 2,3,4,5,6 --seeds 1,2,3
  tests/bench/sweep_knob.py --scenario busy-field --knob block-gap-ms --values 0,100,300
  tests/bench/sweep_knob.py --scenario busy-field --knob hops --values 1,2,3 -- --szx 5

The knob is any meter-sim option that takes a value (see `meter-sim --help`):
szx, poll-ms, ack-timeout, block-gap-ms, hops, hidden-fraction,
bg-upload-interval, loss, ...; it is passed as `--KNOB VALUE`. Arguments after
`--` go to every run. The truth's numbers are exact (docs/ground-truth.md), so
the table is the simulator's truth per setting, not an estimate. Runs are
written to a temporary directory and removed; nothing else is touched.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_SIM = os.path.join(HERE, "..", "..", "build", "captures", "meter-sim")


def firmware_transfer(truth):
    """meter0's last firmware (Block2) transfer in the truth, or None."""
    found = None
    for t in truth["transfers"]:
        if not t["background"] and t["kind"] == "block2" and t["meter"]["name"] == "meter0":
            found = t
    return found


def run_one(sim, scenario, knob, value, seed, extra, tmp):
    out = os.path.join(tmp, "run.pcap")
    cmd = [sim, "--quiet", "--scenario", scenario, "--seed", str(seed), "--output", out]
    cmd += extra + ["--" + knob, value]
    subprocess.run(cmd, check=True)
    with open(out + ".truth.json") as f:
        truth = json.load(f)
    t = firmware_transfer(truth)
    if t is None:
        sys.exit("no firmware transfer of meter0 in the truth of: " + " ".join(cmd))
    o = t["on_air"]
    ok_resp = o["response_copies"] - o["response_copies_lost"]
    return {
        "rate": t["effective_rate_Bps"] or 0.0,
        "duration": t["duration_s"],
        "outcome": t["outcome"],
        "blocks": t["blocks"],
        "retx": t["coap_retransmissions"],
        "frags": o["response_frames_complete"] / ok_resp if ok_resp > 0 else 0.0,
        "resp_lost": o["response_copies_lost"] / o["response_copies"] if o["response_copies"] else 0.0,
        "req_lost": o["request_copies_lost"] / o["request_copies"] if o["request_copies"] else 0.0,
        "timeouts": o["time_timeouts_s"],
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scenario", default="busy-field")
    ap.add_argument("--knob", required=True, help="a meter-sim option taking a value, without the dashes")
    ap.add_argument("--values", required=True, help="comma-separated settings")
    ap.add_argument("--seeds", default="1,2,3", help="comma-separated seeds (default 1,2,3)")
    ap.add_argument("--sim", default=DEFAULT_SIM, help="the meter-sim binary (default build/captures/meter-sim)")
    ap.add_argument("extra", nargs="*", help="after --: more meter-sim arguments for every run")
    a = ap.parse_args()
    seeds = [int(s) for s in a.seeds.split(",") if s]
    values = [v for v in a.values.split(",") if v]

    print(f"scenario {a.scenario}, knob --{a.knob}, seeds {','.join(map(str, seeds))}"
          + (f", plus {' '.join(a.extra)}" if a.extra else ""))
    print("per seed: B/s/duration s/outcome (c complete, u unfinished within the bound, a aborted, e error)")
    print(f"{a.knob:>10} | {'median B/s':>10} {'median s':>8} {'done':>5} | {'frags':>5} {'resp lost':>9} "
          f"{'req lost':>8} {'timeouts s':>10} {'retx':>5} | per seed")
    with tempfile.TemporaryDirectory() as tmp:
        for v in values:
            rows = [run_one(a.sim, a.scenario, a.knob, v, s, a.extra, tmp) for s in seeds]
            med = lambda k: statistics.median(r[k] for r in rows)
            done = sum(r["outcome"] == "complete" for r in rows)
            per_seed = " ".join(f"{r['rate']:.0f}/{r['duration']:.0f}/{r['outcome'][0]}" for r in rows)
            print(f"{v:>10} | {med('rate'):10.0f} {med('duration'):8.0f} {done:>2}/{len(rows):<2} | "
                  f"{med('frags'):5.1f} {100 * med('resp_lost'):8.0f}% {100 * med('req_lost'):7.0f}% "
                  f"{med('timeouts'):10.0f} {med('retx'):5.0f} | {per_seed}")
    print("frags: fragments per response copy on a hop; resp/req lost: copies (one per hop) incomplete on air "
          "or with an unacknowledged fragment; timeouts: time waiting for CoAP retransmission timers; all medians")


if __name__ == "__main__":
    main()
