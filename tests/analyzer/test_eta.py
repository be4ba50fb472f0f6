#!/usr/bin/env python3
"""test_eta.py METERSCOPE METER_SIM: the ETA of an incomplete download
(eta_s, eta_low_s, eta_high_s, common/transfer_record.h) against the
generator's truth. meter-sim writes whole runs (a 64 KiB image at SZX 4 after
a 56-block history upload); editcap cuts each one at 25%, 50% and 75% of the
download's duration as the truth gives it. In each cut capture the download is
incomplete and its size known (the announcement of the config fetch, Size2,
the image header), so it has an ETA counted from its last activity: the true
remaining time, the truth's last_response_us less that last activity, should
lie in [eta_low_s, eta_high_s] for most cuts. The range is a 90% one (1.645
standard deviations either side of a normal sum leave 5% out on each) under
the contract's assumption that the blocks still to come take times drawn like
the blocks seen so far, independently; bursty loss, re-requests and pauses make
neighbouring blocks alike and some stretches slow, and a cut late in the
download leaves few blocks, whose sum a normal range fits worst. So the test
asks for 75% of the cuts, not 90% (were the range right 90% of the time
independently, 26 or fewer of 36 would happen once in a few hundred runs).
Each cut's numbers are also the contract's formula over the transfer's
accepted blocks (its progress points) with the truth's first request, block
size and image size; those points are checked, not taken on trust: in the
whole run they are as many as the truth's blocks, the last at the truth's
last response and with its bytes, each cut's are the whole run's up to the
cut, and for the first seed every one is where stock tshark shows the
response the meter accepted (docs/ota-sessions.md: the first response round
its request was not sent again after). The ETA is empty (null in JSON, an
empty cell in CSV) for every complete transfer, for an incomplete upload
whose size nothing in the capture tells, and for a download seen only in its
middle (without block 0, Size2 or the config fetch the size is unknown)."""
import csv
from decimal import Decimal
import io
import json
import math
import os
import subprocess
import sys

from analyser_run import Analyser, prefs_args
from checks import Checks
import tshark_view as tv

SEEDS = range(1, 13)
CUTS = (0.25, 0.5, 0.75)
SIM_ARGS = ["--scenario", "default", "--image-size", "65536", "--szx", "4", "--his-szx", "1",
            "--history-samples", "64"]
MIN_COVERED = 0.75
ETA = ("eta_s", "eta_low_s", "eta_high_s")

check = Checks()


def cut(src, dst, after_us=None, before_us=None):
    """editcap: the frames stamped at or after after_us and before before_us."""
    cmd = ["editcap"]
    if after_us is not None:
        cmd += ["-A", "%.6f" % (after_us / 1e6)]
    if before_us is not None:
        cmd += ["-B", "%.6f" % (before_us / 1e6)]
    # Not under the sanitizer build's preloaded runtimes: editcap is not
    # ours, and hangs with them.
    plain = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}
    subprocess.run(cmd + [src, dst], check=True, capture_output=True, timeout=120, env=plain)
    os.chmod(dst, 0o644)


def new_blocks(t):
    """[(ts_us, bytes)]: the transfer's progress points that accepted a new block."""
    out, last = [], 0
    for ts, done, kind in t["progress"]:
        if kind == "block" and done > last:
            out.append((ts, done))
            last = done
    return out


STOCK_FIELDS = ["frame.time_epoch", "wpan.src16", "wpan.seq_no", "wpan.ack_request", "ipv6.src", "ipv6.dst",
                "coap.code", "coap.mid", "coap.opt.name", "coap.opt.block_number", "coap.opt.block_size"]


def stock_new_blocks(rows, fw, before_us=None):
    """([(ts_us, bytes)], bytes) of download fw in stock tshark's rows (frames
    before before_us): per request Message ID (GETs with Block2 from the
    meter), the first 2.05 with Block2 to it after the request's last round,
    as the meter accepted it; of those, the ones with a block not seen
    before, of the length the truth's image size gives; and the bytes
    contiguous from offset 0 that any 2.05 carried. A MAC retry (the
    previous frame of its sender again) is no new copy."""
    meter, last_seq, last_round, answers = fw["meter"]["ipv6"], {}, {}, []
    for r in rows:
        us = int(Decimal(r["frame.time_epoch"]) * 1000000)
        if before_us is not None and us >= before_us:
            break
        if tv.is_true(r["wpan.ack_request"]):
            retry = last_seq.get(r["wpan.src16"]) == r["wpan.seq_no"]
            last_seq[r["wpan.src16"]] = r["wpan.seq_no"]
            if retry:
                continue
        if not r["coap.mid"] or "Block2" not in r["coap.opt.name"]:
            continue
        if r["ipv6.src"] == meter and r["coap.code"] == "1":
            last_round[r["coap.mid"]] = us
        elif r["ipv6.dst"] == meter and r["coap.code"] == "69":
            size = 16 << int(r["coap.opt.block_size"].split(";")[0])
            offset = int(r["coap.opt.block_number"].split(";")[0]) * size
            answers.append((us, r["coap.mid"], offset, min(size, fw["resource_size"] - offset)))
    accepted = {}
    for us, mid, offset, length in answers:
        if mid in last_round and us > last_round[mid] and mid not in accepted:
            accepted[mid] = (us, offset, length)
    out, seen, done = [], set(), 0
    for us, offset, length in sorted(accepted.values()):
        if offset not in seen and length > 0:
            seen.add(offset)
            done += length
            out.append((us, done))
    lengths = {offset: length for _, _, offset, length in answers}
    contiguous = 0
    while lengths.get(contiguous, 0) > 0:
        contiguous += lengths[contiguous]
    return out, contiguous


def formula(t, x):
    """(eta, low, high, N) by the contract, from the transfer's accepted new
    blocks: the intervals between them, the first from the first request;
    the first request, the block size and the image size the truth's (x)."""
    at = [x["on_air"]["first_request_us"]] + [ts for ts, _ in new_blocks(t)]
    iv = [(b - a) / 1e6 for a, b in zip(at, at[1:])]
    n_seen = len(iv)
    if n_seen < 2:
        return None   # no spread from one interval (the contract leaves it open)
    mean = sum(iv) / n_seen
    sd = math.sqrt(sum((v - mean) ** 2 for v in iv) / (n_seen - 1))
    n = math.ceil((x["resource_size"] - t["bytes"]) / x["block_size"])
    eta = n * mean
    half = 1.645 * math.sqrt(n * sd * sd + n * n * sd * sd / n_seen)
    return eta, max(0.0, eta - half), eta + half, n_seen


def no_eta(t):
    return all(t.get(k) is None for k in ETA)


def close(a, b, rel):
    return abs(a - b) <= 2e-6 + rel * abs(b)


def main():
    binary, sim = sys.argv[1:3]
    a = Analyser(binary)
    covered = cuts_seen = 0
    try:
        for seed in SEEDS:
            whole = os.path.join(a.tmp, "s%d.pcap" % seed)
            subprocess.run([sim] + SIM_ARGS + ["--seed", str(seed), "--quiet", "--output", whole], check=True,
                           timeout=300)
            os.chmod(whole, 0o644)
            truth = tv.load_truth(whole)
            fw = next(x for x in truth["transfers"] if x["kind"] == "block2")
            his = next(x for x in truth["transfers"] if x["kind"] == "block1")
            f0, f1 = fw["first_request_us"], fw["last_response_us"]
            caps = {"whole": whole}
            for f in CUTS:
                caps[f] = os.path.join(a.tmp, "s%d-%02d.pcap" % (seed, 100 * f))
                cut(whole, caps[f], before_us=f0 + f * (f1 - f0))
            caps["history"] = os.path.join(a.tmp, "s%d-his.pcap" % seed)
            cut(whole, caps["history"], before_us=(his["first_request_us"] + his["last_response_us"]) / 2)
            caps["middle"] = os.path.join(a.tmp, "s%d-mid.pcap" % seed)
            cut(whole, caps["middle"], after_us=f0 + 0.25 * (f1 - f0), before_us=f0 + 0.75 * (f1 - f0))
            res = a.run(prefs_args(truth) + ["--no-progress", "-q", "-j", "2", "--format", "json"] +
                        [os.path.basename(p) for p in caps.values()], timeout=600)
            if res.returncode != 0:
                check(False, "seed %d: meterscope exited %d: %s" % (seed, res.returncode, res.stderr.strip()))
                continue
            by_file = {os.path.basename(c["file"]): c["transfers"] for c in json.loads(res.stdout)["captures"]}
            report = {k: by_file[os.path.basename(p)] for k, p in caps.items()}

            def of(key, x):
                return [t for t in report[key] if t["meter"] == x["meter"]["ipv6"] and t["path"] == x["uri_path"]]

            done = [t for t in report["whole"] if t["complete"]]
            check(len(done) == len(report["whole"]) == 2 and all(no_eta(t) for t in done),
                  "seed %d, whole run: its %d transfers complete, none with an ETA" % (seed, len(done)))
            whole_t = of("whole", fw)
            points = new_blocks(whole_t[0]) if len(whole_t) == 1 else []
            oa = fw["on_air"]
            check(len(whole_t) == 1 and whole_t[0]["first_request_us"] == oa["first_request_us"] and
                  len(points) == oa["blocks"] and points[-1] == (oa["last_response_us"], oa["bytes"]),
                  "seed %d, whole run: the download's first request and %d accepted new blocks, the last at %s with "
                  "%s bytes, are the truth's (%d, %d, %d)" % (seed, len(points), points and points[-1][0],
                                                              points and points[-1][1], oa["blocks"],
                                                              oa["last_response_us"], oa["bytes"]))
            stock = tv.run_fields(whole, truth, STOCK_FIELDS) if seed == SEEDS[0] else None
            if stock:
                want, _ = stock_new_blocks(stock, fw)
                check(points == want, "seed %d, whole run: the %d accepted new blocks are where stock tshark shows "
                      "the meter accepted them (%d)" % (seed, len(points), len(want)))
            h = of("history", his)
            check(len(h) == 1 and not h[0]["complete"] and h[0]["size_hint"] is None and no_eta(h[0]),
                  "seed %d, cut in the history upload: incomplete, size unknown, no ETA" % seed)
            mid = of("middle", fw)
            check(mid and all(not t["complete"] and t["size_hint"] is None and no_eta(t) for t in mid),
                  "seed %d, the download's middle half only: incomplete, size unknown, no ETA" % seed)
            for f in CUTS:
                name = "seed %d, cut at %.0f%% of the download" % (seed, 100 * f)
                t = of(f, fw)
                h = of(f, his)
                check(len(h) == 1 and h[0]["complete"] and no_eta(h[0]),
                      "%s: the history upload before it complete, no ETA" % name)
                if len(t) != 1 or t[0]["complete"] or t[0]["size_hint"] != fw["resource_size"]:
                    check(False, "%s: one incomplete download of known size (%d B)" % (name, fw["resource_size"]))
                    continue
                t = t[0]
                if any(t.get(k) is None for k in ETA):
                    check(False, "%s: an ETA (%s)" % (name, ", ".join("%s %s" % (k, t.get(k)) for k in ETA)))
                    continue
                if formula(t, fw) is None:
                    check(False, "%s: at least two block intervals before the cut" % name)
                    continue
                # The whole run's, but the last: the cut may end before its
                # request was sent again, which makes a later round the one
                # the whole run has the meter accept.
                cut_points = new_blocks(t)
                n = len(cut_points)
                check(n and cut_points[:-1] == points[:n - 1] and cut_points[-1][1] == points[n - 1][1]
                      and cut_points[-1][0] <= points[n - 1][0],
                      "%s: its %d accepted new blocks are the whole run's first" % (name, n))
                if stock:
                    want, contiguous = stock_new_blocks(stock, fw, f0 + f * (f1 - f0))
                    check(cut_points == want and t["bytes"] == contiguous, "%s: its accepted new blocks and its %d "
                          "bytes are where and what stock tshark shows before the cut (%d, %d)"
                          % (name, t["bytes"], len(want), contiguous))
                eta, low, high, n_seen = formula(t, fw)
                # The spread: the sample's standard deviation; over N or N - 1 both pass.
                check(close(t["eta_s"], eta, 1e-7) and close(t["eta_low_s"], low, 1.0 / n_seen) and
                      close(t["eta_high_s"], high, 1.0 / n_seen) and 0 <= t["eta_low_s"] <= t["eta_s"] <= t["eta_high_s"],
                      "%s: ETA %.1f s [%.1f, %.1f] is the contract's from %d block intervals (%.1f [%.1f, %.1f])"
                      % (name, t["eta_s"], t["eta_low_s"], t["eta_high_s"], n_seen, eta, low, high))
                true_left = (f1 - t["last_activity_us"]) / 1e6
                inside = t["eta_low_s"] <= true_left <= t["eta_high_s"]
                covered += inside
                cuts_seen += 1
                print("      %s: %.1f s left in truth, %s the range" % (name, true_left, "in" if inside else "OUTSIDE"))
            if seed == SEEDS[0]:
                csv_res = a.run(prefs_args(truth) + ["--no-progress", "-q", "--format", "csv",
                                                     os.path.basename(caps[0.5])], timeout=600)
                rows = list(csv.DictReader(io.StringIO(csv_res.stdout)))
                cells = {r["path"]: [r.get(k) for k in ETA] for r in rows}
                check(csv_res.returncode == 0 and all(v == "" for v in cells.get(his["uri_path"], [None])) and
                      all(v not in ("", None) for v in cells.get(fw["uri_path"], [None])),
                      "seed %d, cut at 50%%, CSV: ETA cells empty for the complete upload, filled for the download: %s"
                      % (seed, cells))
        want = math.ceil(MIN_COVERED * len(SEEDS) * len(CUTS))
        check(cuts_seen == len(SEEDS) * len(CUTS) and covered >= want,
              "the true remaining time within the 90%% range in %d of %d cuts (%.0f%%; at least %d asked)"
              % (covered, cuts_seen, 100.0 * covered / max(cuts_seen, 1), want))
    finally:
        a.close()
    return check.summary("analyzer.eta")


if __name__ == "__main__":
    sys.exit(main())
