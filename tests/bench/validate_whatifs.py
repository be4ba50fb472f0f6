#!/usr/bin/env python3
"""validate_whatifs.py BUILD_DIR [--markdown FILE] [--seeds 1,2] [--image-size N] [--jobs N]:
the analyser's what-ifs (docs/recommendation.md, "What if") against the
generator's truth. A benchmark: it prints, and exits 0.

For each knob it generates one capture per setting of meter0's firmware
download (meter-sim, a small image), analyses each with the analyser, and
compares what each capture predicts for every OTHER setting of the sweep (the
`what_to_change.changes` entry of that knob and value, its whole-image time
scaled to the bytes the truth's transfer moved) with the truth's duration at
that setting. Sweeps:

  poll     --poll-ms 50/100/250/500/1000 (field-szx4: a sleepy meter, one hop, ~5% bursty loss)
  ack      --ack-timeout 1/2/3/4/6 over a slow backhaul (field-szx4 --rtt-ms 2500 --rtt-jitter-ms 1500),
           retransmissions sent for nothing too (truth: on_air.spurious_retransmissions)
  pacing   --block-gap-ms 0/20/50/100 on busy-field (the analyser predicts gaps of 20, 50 and 100 ms)
  hops     --hops 1/2/3 (field-szx4; the analyser predicts h-1 and h+1)
  szx-*    --szx 2..6 on the quiet field set, busy-field and three hops (the block-size what-ifs)

Per sweep: the matrix of predicted / truth - 1 (row: the capture predicted
from; column: the setting predicted; the diagonal, in brackets, is the
capture's own `now` against its own truth: a consistency check), the count
within 20%, the worst error, how many truths fall in the predicted
[low, high] range, the recommended setting (the knob's change with the most
saves_s, "as is" when none saves time) against the truth's fastest, and the
meter's frames predicted against the frames counted in the truth's setting's
capture. The truth has no count of one node's frames, so those are counted
from the capture (the generator's sniffer is perfect by default): every frame
to or from meter0 (short or extended address) from the transfer's first
request to its last response, and each immediate ACK of one; this includes MAC
retries and the meter's MLE frames, which the analyser's count leaves out.

Only meter0's firmware transfer is the basis: in the truth, the first
non-background Block2 transfer of meter0; in the analyser's report, the
first Block2 transfer of the firmware path from meter0's address.

How to run (a few minutes on 2 cores; tshark runs as nobody when started as
root, see tests/as-user):

  cmake --build build -j2
  tests/bench/validate_whatifs.py build
  tests/bench/validate_whatifs.py build --seeds 1,2,3 --markdown /tmp/whatifs.md
  tests/bench/validate_whatifs.py build --only poll,ack      # some sweeps only
"""
import argparse
import concurrent.futures
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
AS_USER = os.path.join(HERE, "..", "as-user")
TARGET = 0.2

FIELD = ["--scenario", "field-szx4"]
BUSY = ["--scenario", "busy-field"]
# name, title, knob in the report, meter-sim option, settings, report value of a setting, options, unit
SWEEPS = [
    ("poll", "poll period (field-szx4: sleepy meter, one hop, ~5% bursty loss)", "poll_period", "--poll-ms",
     [50, 100, 250, 500, 1000], lambda s: s / 1000.0, FIELD, "ms"),
    ("ack", "ACK_TIMEOUT over a slow backhaul (field-szx4, --rtt-ms 2500 --rtt-jitter-ms 1500)", "ack_timeout",
     "--ack-timeout", [1, 2, 3, 4, 6], float, FIELD + ["--rtt-ms", "2500", "--rtt-jitter-ms", "1500"], "s"),
    ("pacing", "pacing (busy-field: 2 hops, 30 nodes, half hidden)", "pacing", "--block-gap-ms", [0, 20, 50, 100],
     lambda s: s / 1000.0, BUSY, "ms"),
    ("hops", "hops (field-szx4)", "hops", "--hops", [1, 2, 3], float, FIELD, ""),
    ("szx-quiet", "block size (field set: one hop, ~5% bursty loss)", "block_size", "--szx", [2, 3, 4, 5, 6], float,
     FIELD, ""),
    ("szx-busy", "block size (busy-field)", "block_size", "--szx", [2, 3, 4, 5, 6], float, BUSY, ""),
    ("szx-3hop", "block size (field set, --hops 3)", "block_size", "--szx", [2, 3, 4, 5, 6], float,
     FIELD + ["--hops", "3"], ""),
]


def label(sweep, s):
    unit = sweep[7]
    return ("SZX %d" % s) if sweep[2] == "block_size" else ("%g%s" % (s, unit) if unit else "%g hop%s" % (
        s, "" if s == 1 else "s"))


def as_user(tmp, *cmd):
    return [AS_USER, "HOME=" + tmp] + list(cmd)


def meter_frames_counted(tmp, pcap, t):
    """Frames to or from meter0 and their immediate ACKs within the transfer, from the capture."""
    out = subprocess.run(as_user(tmp, "tshark", "-n", "-r", pcap, "-T", "fields", "-E", "separator=,",
                                 "-e", "frame.time_epoch", "-e", "wpan.frame_type", "-e", "wpan.seq_no",
                                 "-e", "wpan.src16", "-e", "wpan.dst16", "-e", "wpan.src64", "-e", "wpan.dst64"),
                         check=True, capture_output=True, text=True).stdout
    short = int(t["meter"]["short"], 16)
    ext = t["meter"]["ext"].lower()
    start = t["first_request_us"] * 1e-6 - 0.02
    end = (t["last_response_us"] or t["last_activity_us"]) * 1e-6 + 0.002
    n = retries = polls = 0
    prev = None              # (is the meter's, seq) of the last non-ACK frame
    last_seq_by_src = {}
    for line in out.splitlines():
        f = line.split(",")
        if len(f) < 7 or not f[0]:
            continue
        when = float(f[0])
        if when < start:
            continue
        if when > end:
            break
        ftype = int(f[1], 0) if f[1] else -1
        if ftype == 2:
            if prev and prev[0] and f[2] == prev[1]:
                n += 1
            prev = None
            continue
        mine = False
        for a in (f[3], f[4]):
            if a and int(a, 0) == short:
                mine = True
        for a in (f[5], f[6]):
            if a and a.replace(":", "").lower() == ext:
                mine = True
        prev = (mine, f[2])
        if mine:
            n += 1
            key = f[3] or f[5]
            if last_seq_by_src.get(key) == f[2]:
                retries += 1
            last_seq_by_src[key] = f[2]
            polls += ftype == 3
    return {"frames": n, "mac_retries": retries, "data_requests": polls}


def run_one(job):
    """Generates and analyses one capture; returns its numbers."""
    build, tmp, sweep, setting, seed, image_size = job
    name = "%s-%s-seed%d" % (sweep[0], setting, seed)
    pcap = os.path.join(tmp, name + ".pcap")
    cmd = [os.path.join(build, "captures", "meter-sim"), "--quiet", "--seed", str(seed), "--output", pcap]
    cmd += sweep[6] + ["--image-size", str(image_size), sweep[3], str(setting)]
    subprocess.run(cmd, check=True)
    os.chmod(pcap, 0o644)
    truth = json.load(open(pcap + ".truth.json"))
    t = next((x for x in truth["transfers"] if not x["background"] and x["kind"] == "block2"
              and x["meter"]["name"] == "meter0"), None)
    if t is None:
        return {"name": name, "error": "no firmware transfer of meter0 in the truth"}
    res = subprocess.run(as_user(tmp, os.path.join(tmp, "meterscope"), "--plugin", os.path.join(tmp, "meterscope.so"),
                                 "-O", "6lowpan.context1:2001:db8:1::/64", "--no-progress", "-q", "--format", "json",
                                 pcap), capture_output=True, text=True)
    if res.returncode != 0:
        return {"name": name, "truth": t, "error": "analyser failed: " + res.stderr.strip()[:300]}
    try:
        report = json.loads(res.stdout)["captures"][0]
    except ValueError as e:
        return {"name": name, "truth": t, "error": "the analyser's JSON does not parse: %s: %r" % (
            e, res.stdout[max(0, e.pos - 120):e.pos + 40] if hasattr(e, "pos") else "")}
    cands = [x for x in report["transfers"] if x["kind"] == "block2" and x["meter"] == t["meter"]["ipv6"]
             and x["path"] == t["uri_path"]]
    cands.sort(key=lambda x: x["first_request_us"])
    if not cands:
        return {"name": name, "truth": t, "error": "no transfer of meter0's firmware in the report"}
    x = cands[0]
    out = {"name": name, "truth": t, "transfer": x, "whatif": x.get("what_to_change"),
           "verdict": x.get("verdict"), "counted": meter_frames_counted(tmp, pcap, t)}
    os.unlink(pcap)
    return out


def pct(e):
    return "%+.0f%%" % (100 * e) if e is not None else "n/a"


class Sweep:
    def __init__(self, sweep, seed, runs):
        self.s, self.seed, self.runs = sweep, seed, runs     # runs: {setting: result}
        self.settings = sweep[4]

    def truth_s(self, s):
        return self.runs[s]["truth"]["duration_s"]

    def complete(self, s):
        return self.runs[s]["truth"]["outcome"] == "complete"

    def scale(self, f, o):
        """From capture f's image to the bytes of o's truth."""
        w = self.runs[f]["whatif"]
        return self.runs[o]["truth"]["bytes"] / w["image_bytes"]

    def change(self, f, o):
        """The change predicted from f for setting o, or None."""
        w = self.runs[f].get("whatif")
        if not w:
            return None
        v = self.s[5](o)
        for c in w["changes"]:
            if c["knob"] == self.s[2] and abs(c["value"] - v) <= 1e-6 * max(1, abs(v)):
                return c
        return None

    def ok(self, s):
        return "error" not in self.runs[s] and self.runs[s].get("whatif")

    def cells(self):
        """{(f, o): dict(pred, low, high, truth, err, in_range, frames, frames_err, spurious)}."""
        out = {}
        for f in self.settings:
            if not self.ok(f):
                continue
            for o in self.settings:
                if "truth" not in self.runs[o]:
                    continue
                if o == f:
                    c = self.runs[f]["whatif"]["now"]
                    own = True
                else:
                    c = self.change(f, o)
                    own = False
                    if c is None:
                        continue
                k = self.scale(f, o)
                t = self.truth_s(o)
                pred = c["duration_s"] * k
                # null: an unbounded end of the range (the loss's upper end at 100%)
                low = (c["duration_low_s"] if c["duration_low_s"] is not None else 0.0) * k
                high = (c["duration_high_s"] if c["duration_high_s"] is not None else math.inf) * k
                counted = self.runs[o].get("counted", {}).get("frames")
                out[(f, o)] = {
                    "own": own, "pred": pred, "low": low, "high": high,
                    "truth": t, "err": pred / t - 1 if t > 0 else None,
                    "in_range": low <= t <= high,
                    "frames": c["meter_frames"] * k, "counted": counted,
                    "frames_err": c["meter_frames"] * k / counted - 1 if counted else None,
                    "spurious": c["spurious_retransmissions"] * k,
                    "spurious_truth": self.runs[o]["truth"]["on_air"].get("spurious_retransmissions"),
                    "complete": self.complete(o),
                }
        return out

    def recommended(self, f):
        w = self.runs[f]["whatif"]
        mine = [c for c in w["changes"] if c["knob"] == self.s[2]]
        saved = lambda c: c["saves_s"] - c["costs_s"]  # noqa: E731
        best = max(mine, key=saved, default=None)
        if best is None or saved(best) <= 0:
            return None, 0.0
        return best["value"], saved(best)

    def setting_of(self, v):
        for s in self.settings:
            if abs(self.s[5](s) - v) <= 1e-6 * max(1, abs(v)):
                return s
        return None


def print_sweep(sw, md):
    s = sw.s
    cells = sw.cells()
    title = "%s, seed %d" % (s[1], sw.seed)
    print("\n=== %s: %s" % (s[0], title))
    for k in sw.settings:
        r = sw.runs[k]
        if "error" in r:
            print("  %s: %s" % (label(s, k), r["error"]))
    heads = [label(s, o) for o in sw.settings]
    width = max(9, max(len(h) for h in heads) + 2)
    print("predicted duration / truth - 1 (row: the capture predicted from; column: the setting predicted; "
          "[own]: the capture's own 'now'; n/a: no prediction for it)")
    print("%-10s" % "from" + "".join(h.rjust(width) for h in heads) + "   recommends   truth at it / fastest - 1")
    fastest = min((o for o in sw.settings if "truth" in sw.runs[o]),
                  key=lambda o: (not sw.complete(o), sw.truth_s(o)))
    rec_right = rec_n = 0
    regrets = []
    for f in sw.settings:
        if not sw.ok(f):
            print("%-10s (no what-ifs)" % label(s, f))
            continue
        row = []
        for o in sw.settings:
            c = cells.get((f, o))
            if c is None:
                row.append("n/a")
            elif c["own"]:
                row.append("[%s]" % pct(c["err"]))
            else:
                row.append(pct(c["err"]) + ("" if c["in_range"] else "!"))
        v, saved = sw.recommended(f)
        rs = f if v is None else sw.setting_of(v)
        rec_n += 1
        if v is None:
            rtext = "as is"
        elif rs is None:
            rtext = "%g (not swept)" % v
        else:
            rtext = label(s, rs)
        regret = ""
        if rs is not None and "truth" in sw.runs[rs]:
            g = sw.truth_s(rs) / sw.truth_s(fastest) - 1
            regrets.append(g)
            regret = pct(g)
            rec_right += rs == fastest
        print("%-10s" % label(s, f) + "".join(x.rjust(width) for x in row) + "   %-12s %s" % (rtext, regret))
    truths = ["%s %.1f s%s" % (label(s, o), sw.truth_s(o), "" if sw.complete(o) else " (" +
                               sw.runs[o]["truth"]["outcome"] + ")") for o in sw.settings if "truth" in sw.runs[o]]
    print("truth: " + ", ".join(truths) + "; fastest: " + label(s, fastest))
    preds = [c for c in cells.values() if not c["own"]]
    within = sum(abs(c["err"]) <= TARGET for c in preds)
    inr = sum(c["in_range"] for c in preds)
    worst = max(preds, key=lambda c: abs(c["err"]), default=None)
    own = [abs(c["err"]) for c in cells.values() if c["own"]]
    print("predictions: %d, within 20%%: %d, worst: %s, truth within the predicted range: %d of %d ('!' marks "
          "the misses); own 'now' worst %.1f%%" % (len(preds), within, pct(worst["err"]) if worst else "n/a", inr,
                                                  len(preds), 100 * max(own, default=0)))
    print("recommendation: %d of %d captures recommend the truth's fastest (%s); truth at the recommended / "
          "fastest - 1: worst %s" % (rec_right, rec_n, label(s, fastest), pct(max(regrets, default=None))
                                     if regrets else "n/a"))
    # the meter's frames
    fr = [c for c in cells.values() if c["frames_err"] is not None]
    if fr:
        print("meter's frames, predicted / counted in the capture - 1 (counted: frames to or from meter0 and their "
              "ACKs during the transfer, MAC retries and MLE included):")
        print("%-10s" % "from" + "".join(h.rjust(width) for h in heads))
        for f in sw.settings:
            if not sw.ok(f):
                continue
            row = []
            for o in sw.settings:
                c = cells.get((f, o))
                row.append("n/a" if c is None or c["frames_err"] is None else
                           ("[%s]" % pct(c["frames_err"]) if c["own"] else pct(c["frames_err"])))
            print("%-10s" % label(s, f) + "".join(x.rjust(width) for x in row))
        print("counted: " + ", ".join("%s %d (%d Data Requests, %d MAC retries)" % (
            label(s, o), sw.runs[o]["counted"]["frames"], sw.runs[o]["counted"]["data_requests"],
            sw.runs[o]["counted"]["mac_retries"]) for o in sw.settings if "counted" in sw.runs[o]))
    else:
        print("meter's frames: no count (the truth has none and the capture could not be counted)")
    if s[2] == "ack_timeout":
        print("retransmissions for nothing, predicted (truth) (row: from; column: setting):")
        print("%-10s" % "from" + "".join(h.rjust(width + 4) for h in heads))
        for f in sw.settings:
            if not sw.ok(f):
                continue
            row = []
            for o in sw.settings:
                c = cells.get((f, o))
                row.append("n/a" if c is None else "%.0f (%s)" % (c["spurious"], c["spurious_truth"]))
            print("%-10s" % label(s, f) + "".join(x.rjust(width + 4) for x in row))
        print("first timeout the analyser read (ACK_TIMEOUT it assumed): " + ", ".join(
            "%s %.2f s (%s)" % (label(s, f), sw.runs[f]["whatif"]["ack_timeout_s"],
                                sw.runs[f]["whatif"]["ack_timeout_from"]) for f in sw.settings if sw.ok(f)))
    if s[2] == "poll_period":
        print("poll period the analyser read: " + ", ".join(
            "%s %.3f s" % (label(s, f), sw.runs[f]["transfer"]["poll_period_s"] or 0) for f in sw.settings
            if sw.ok(f)))
        print("poll wait a block, analyser (truth): " + ", ".join(
            "%s %.3f (%.3f) s" % (label(s, f), sw.runs[f]["transfer"]["time_poll_s"] / max(1, sw.runs[f]["transfer"]
                                                                                          ["blocks"]),
                                 sw.runs[f]["truth"]["on_air"]["time_poll_s"] / max(1, sw.runs[f]["truth"]["blocks"]))
            for f in sw.settings if sw.ok(f)))
    md.append("\n**%s** (predicted s, and predicted / truth - 1; row: the capture predicted from)\n" % title)
    md.append("| from | " + " | ".join(heads) + " | recommends |")
    md.append("|---|" + "---|" * len(heads) + "---|")
    for f in sw.settings:
        if not sw.ok(f):
            continue
        row = []
        for o in sw.settings:
            c = cells.get((f, o))
            row.append("n/a" if c is None else "%.0f (truth)" % c["truth"] if c["own"] else
                       "%.0f (%s%s)" % (c["pred"], pct(c["err"]), "" if c["in_range"] else ", out of range"))
        v, _ = sw.recommended(f)
        rs = f if v is None else sw.setting_of(v)
        md.append("| %s | %s | %s |" % (label(s, f), " | ".join(row), "as is" if v is None else
                                         label(s, rs) if rs is not None else "%g" % v))
    md.append("| truth | " + " | ".join("%.0f" % sw.truth_s(o) if "truth" in sw.runs[o] else "-"
                                        for o in sw.settings) + " | fastest: %s |" % label(s, fastest))
    return (s[0], sw.seed, len(preds), within, worst["err"] if worst else None, inr, rec_right, rec_n,
            max(regrets, default=None) if regrets else None,
            max((abs(c["frames_err"]) for c in fr if not c["own"]), default=None))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("build", nargs="?", default=os.path.join(HERE, "..", "..", "build"))
    ap.add_argument("--markdown", help="write the tables as markdown to this file")
    ap.add_argument("--seeds", default="1", help="comma-separated seeds (default 1); one matrix per seed")
    ap.add_argument("--image-size", type=int, default=32768, help="firmware body size (default 32768)")
    ap.add_argument("--jobs", type=int, default=2, help="generator+analyser runs at once (default 2)")
    ap.add_argument("--only", help="comma-separated sweep names: " + ",".join(s[0] for s in SWEEPS))
    a = ap.parse_args()
    build = os.path.abspath(a.build)
    seeds = [int(x) for x in a.seeds.split(",") if x]
    sweeps = [s for s in SWEEPS if not a.only or s[0] in a.only.split(",")]
    md = ["<!-- tests/bench/validate_whatifs.py, image %d bytes, seeds %s -->" % (a.image_size, a.seeds)]
    tmp = tempfile.mkdtemp()
    try:
        for f in ("analyzer/meterscope", "plugin/meterscope.so"):
            shutil.copy(os.path.join(build, f), tmp)
        os.chmod(tmp, 0o755)
        jobs = [(build, tmp, s, v, seed, a.image_size) for seed in seeds for s in sweeps for v in s[4]]
        with concurrent.futures.ThreadPoolExecutor(a.jobs) as pool:
            results = list(pool.map(run_one, jobs))
        by = {}
        for j, r in zip(jobs, results):
            by.setdefault((j[2][0], j[4]), {})[j[3]] = r
        summary = []
        for seed in seeds:
            for s in sweeps:
                summary.append(print_sweep(Sweep(s, seed, by[(s[0], seed)]), md))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("\nsummary (predictions of other settings only):")
    print("%-10s %4s %11s %10s %7s %9s %14s %16s %13s" % ("sweep", "seed", "predictions", "within 20%", "worst",
                                                        "in range", "recommends best", "worst regret", "frames worst"))
    for name, seed, n, within, worst, inr, rr, rn, regret, fw in summary:
        print("%-10s %4d %11d %10d %7s %9d %9d of %-4d %16s %13s" % (name, seed, n, within, pct(worst), inr, rr, rn,
                                                                    pct(regret), pct(fw)))
    if a.markdown:
        with open(a.markdown, "w") as f:
            f.write("\n".join(md) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
