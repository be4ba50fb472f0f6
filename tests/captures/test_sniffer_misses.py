#!/usr/bin/env python3
"""test_sniffer_misses.py METER_SIM: the imperfect sniffer (--sniffer-*).

Each check generates a capture twice with one seed, with a perfect sniffer
and with an imperfect one, and compares the two pcaps record by record:
  - the imperfect capture's records are a subsequence of the perfect one's,
    byte for byte and stamp for stamp (ZEP: the PSDU and the stamp, since the
    ZEP header numbers the packets the sniffer sends), and the truth is the
    same apart from what the sniffer did (records, sniffer{}, not_captured{});
  - the truth's "not captured" counts equal the records actually removed,
    in all and by kind (data frames, ACKs, Data Requests, MLE broadcasts),
    and per transfer where every data frame belongs to the one transfer;
  - the measured miss rate is within a binomial tolerance of P (1%, 5%, 20%);
  - bursts cluster the misses as the Gilbert chain predicts (mean run length
    and share of single-frame runs), where independent misses do not;
  - the far-node extra miss applies by the sender's hop count from where the
    sniffer sits, for either position.
The seeds are fixed, so the outcome is deterministic; the tolerances are
what the models allow (Z standard deviations), so that they are not tuned
to these seeds.
"""
import json
import math
import os
import struct
import subprocess
import sys
import tempfile

Z = 4.4   # two-sided ~1e-5: a correct generator fails one seed in 100 000
failures = 0


def check(ok, msg):
    global failures
    print(("ok    " if ok else "FAIL  ") + msg)
    failures += not ok


def generate(sim, out, *args):
    subprocess.run([sim, *args, "--quiet", "--output", out], check=True)
    with open(out + ".truth.json") as f:
        return json.load(f)


def read_pcap(path):
    """[(sec, usec, bytes)] of a microsecond pcap, and its link type."""
    with open(path, "rb") as f:
        data = f.read()
    magic, _, _, _, _, _, linktype = struct.unpack_from("<IHHiIII", data, 0)
    assert magic == 0xA1B2C3D4, "not a little-endian microsecond pcap"
    recs, off = [], 24
    while off < len(data):
        sec, usec, caplen, _ = struct.unpack_from("<IIII", data, off)
        off += 16
        recs.append((sec, usec, data[off:off + caplen]))
        off += caplen
    return recs, linktype


def psdu_of(rec, linktype):
    if linktype == 1:          # ZEP v2 in Ethernet/IPv4/UDP: header of 14 + 20 + 8 + 32
        return rec[2][14 + 20 + 8 + 32:]
    if linktype == 283:        # TAP: its header length is at offset 2
        return rec[2][struct.unpack_from("<H", rec[2], 2)[0]:]
    return rec[2]


def removed_indices(perfect, imperfect, key):
    """Indices of perfect's records missing from imperfect, or None when
    imperfect is not a subsequence of perfect under key."""
    removed, j = [], 0
    for i, rec in enumerate(perfect):
        if j < len(imperfect) and key(imperfect[j]) == key(rec):
            j += 1
        else:
            removed.append(i)
    return removed if j == len(imperfect) else None


def kind(psdu):
    fc = psdu[0] | psdu[1] << 8
    ftype = fc & 7
    if ftype == 2:
        return "acks"
    if ftype == 3:
        return "data_requests"     # the only MAC command the nodes send
    if (fc >> 10) & 3 == 2 and psdu[5:7] == b"\xff\xff":
        return "broadcasts"
    return "data_frames"


def source(psdu):
    """The sender's short (int) or extended (bytes) address; None for an ACK."""
    fc = psdu[0] | psdu[1] << 8
    if fc & 7 == 2:
        return None
    dst_mode, src_mode, compress = (fc >> 10) & 3, (fc >> 14) & 3, (fc >> 6) & 1
    off = 3 + (2 + (2 if dst_mode == 2 else 8) if dst_mode else 0)
    if not compress:
        off += 2
    if src_mode == 2:
        return struct.unpack_from("<H", psdu, off)[0]
    return bytes(reversed(psdu[off:off + 8]))


def without_sniffer(truth):
    t = json.loads(json.dumps(truth))
    for key in ("capture", "sniffer", "records"):
        t.pop(key)
    for x in t["transfers"]:
        x.pop("not_captured")
    for n in t["nodes"]:
        n.pop("sniffer_hops")    # follows --sniffer-at
    return t


def compare(sim, tmp, name, base_args, miss_args):
    """Generates both captures; checks the subset property and the truth's
    counts; returns (perfect records, removed indices, linktype, truths)."""
    perfect_path = os.path.join(tmp, name + "-perfect.pcap")
    miss_path = os.path.join(tmp, name + "-miss.pcap")
    perfect_truth = generate(sim, perfect_path, *base_args)
    truth = generate(sim, miss_path, *base_args, *miss_args)
    perfect, linktype = read_pcap(perfect_path)
    imperfect, _ = read_pcap(miss_path)
    if linktype == 1:
        key = lambda r: (r[0], r[1], psdu_of(r, linktype))
    else:
        key = lambda r: r
    removed = removed_indices(perfect, imperfect, key)
    check(removed is not None and len(imperfect) < len(perfect),
          "%s: the %d records are a subsequence of the perfect capture's %d, byte for byte and stamp for stamp"
          % (name, len(imperfect), len(perfect)))
    if removed is None:
        return perfect, [], linktype, truth
    check(without_sniffer(truth) == without_sniffer(perfect_truth),
          "%s: the truth of the air (transfers, air counts, nodes) is that of the perfect sniffer" % name)
    nc = truth["sniffer"]["not_captured"]
    check(nc["frames"] == len(removed) and truth["sniffer"]["frames_captured"] == len(imperfect) == truth["records"]
          and truth["sniffer"]["frames_on_air"] == len(perfect) == truth["air"]["frames"],
          "%s: truth says %d frames not captured, the pcaps differ by %d" % (name, nc["frames"], len(removed)))
    by_kind = {}
    for i in removed:
        k = kind(psdu_of(perfect[i], linktype))
        by_kind[k] = by_kind.get(k, 0) + 1
    kinds = ("data_frames", "acks", "data_requests", "broadcasts")
    check(all(nc[k] == by_kind.get(k, 0) for k in kinds),
          "%s: not captured by kind, truth %s, pcaps %s"
          % (name, {k: nc[k] for k in kinds}, {k: by_kind.get(k, 0) for k in kinds}))
    per_xfer = [x["not_captured"] for x in truth["transfers"]]
    consistent = all(x["frames"] == x["data_frames"] + x["acks"] + x["data_requests"]
                     and sum(c["data_frames"] for c in x["copies"]) == x["data_frames"]
                     and x["copies_affected"] == len(x["copies"]) for x in per_xfer)
    check(consistent and sum(x["frames"] for x in per_xfer) <= nc["frames"],
          "%s: each transfer's not_captured adds up (kinds, copies) and within the capture's" % name)
    return perfect, removed, linktype, truth


def binomial_ok(k, n, p):
    return abs(k - n * p) <= Z * math.sqrt(n * p * (1 - p))


def runs(removed):
    """Lengths of the runs of consecutive removed records."""
    out, prev = [], None
    for i in removed:
        if prev is not None and i == prev + 1:
            out[-1] += 1
        else:
            out.append(1)
        prev = i
    return out


def test_subsets(sim, tmp):
    compare(sim, tmp, "multihop-burst-far", ["--scenario", "multihop", "--seed", "3"],
            ["--sniffer-miss", "0.05", "--sniffer-burst", "4", "--sniffer-far-miss", "0.3"])
    compare(sim, tmp, "default-host", ["--scenario", "default", "--seed", "1", "--timestamp", "host"],
            ["--sniffer-miss", "0.2"])
    compare(sim, tmp, "secure-tap", ["--scenario", "secure", "--seed", "4", "--link", "283"],
            ["--sniffer-miss", "0.01", "--sniffer-at", "border-router", "--sniffer-far-miss", "0.1"])
    compare(sim, tmp, "busy-zep", ["--scenario", "busy", "--seed", "5", "--link", "zep"], ["--sniffer-miss", "0.05"])
    # Firmware only, no background: every data frame is the one transfer's.
    perfect, removed, lt, truth = compare(
        sim, tmp, "firmware-only", ["--seed", "8", "--no-config", "--no-history"], ["--sniffer-miss", "0.05"])
    data = sum(1 for i in removed if kind(psdu_of(perfect[i], lt)) == "data_frames")
    x = truth["transfers"]
    check(len(x) == 1 and x[0]["not_captured"]["data_frames"] == data > 0,
          "firmware-only: the transfer's not_captured.data_frames (%s) is the %d data frames removed"
          % ([t["not_captured"]["data_frames"] for t in x], data))


def test_rates(sim, tmp):
    base = ["--scenario", "field-szx4", "--seed", "4"]
    for p in (0.01, 0.05, 0.2):
        perfect, removed, _, _ = compare(sim, tmp, "field-%g" % p, base, ["--sniffer-miss", str(p)])
        n, k = len(perfect), len(removed)
        check(n > 50000 and binomial_ok(k, n, p),
              "independent misses at P=%g: %d of %d (%.4f), tolerance +-%.4f" % (
                  p, k, n, k / n, Z * math.sqrt(p * (1 - p) / n)))


def test_bursts(sim, tmp):
    base = ["--scenario", "field-szx4", "--seed", "4"]
    p, mean_len = 0.05, 8.0
    _, ind_removed, _, _ = compare(sim, tmp, "field-independent", base, ["--sniffer-miss", str(p)])
    perfect, removed, _, _ = compare(sim, tmp, "field-burst", base,
                                     ["--sniffer-miss", str(p), "--sniffer-burst", str(mean_len)])
    n, k = len(perfect), len(removed)
    # Gilbert chain: bad -> good with r = 1/L, good -> bad with q = P/(L(1-P));
    # the count of bad frames has variance N P (1-P) (1+l)/(1-l), l = 1-r-q.
    r = 1 / mean_len
    q = p / (mean_len * (1 - p))
    lam = 1 - r - q
    sd = math.sqrt(n * p * (1 - p) * (1 + lam) / (1 - lam))
    check(abs(k - n * p) <= Z * sd, "bursty misses at P=%g: %d of %d (%.4f), tolerance +-%.4f"
          % (p, k, n, k / n, Z * sd / n))
    for label, lengths, stay in (("bursts of mean %g" % mean_len, runs(removed), 1 - r),
                                 ("independent", runs(ind_removed), p)):
        # Run lengths are geometric: P(len = 1) = 1 - stay, mean 1 / (1 - stay).
        m = len(lengths)
        if not m:
            check(False, "%s: no misses to measure runs on" % label)
            continue
        mean = sum(lengths) / m
        want = 1 / (1 - stay)
        sd_mean = math.sqrt(stay) / (1 - stay) / math.sqrt(m)
        single = sum(1 for x in lengths if x == 1)
        check(abs(mean - want) <= Z * sd_mean and binomial_ok(single, m, 1 - stay),
              "%s: %d runs of mean length %.3f (model %.3f +- %.3f), %d of length 1 (model %.1f)"
              % (label, m, mean, want, Z * sd_mean, single, m * (1 - stay)))


def test_far(sim, tmp):
    base = ["--scenario", "multihop", "--seed", "3", "--image-size", "300000"]
    p, far = 0.02, 0.3
    for at, near_hops in (("meter", 1), ("border-router", 2)):
        perfect, removed, lt, truth = compare(
            sim, tmp, "far-" + at, base,
            ["--sniffer-miss", str(p), "--sniffer-at", at, "--sniffer-position", str(near_hops),
             "--sniffer-far-miss", str(far)])
        hops_of = {}
        for node in truth["nodes"]:
            hops_of[int(node["short"], 16)] = node["sniffer_hops"]
            hops_of[bytes.fromhex(node["ext"])] = node["sniffer_hops"]
        gone = set(removed)
        by_hops = {}
        for i, rec in enumerate(perfect):
            src = source(psdu_of(rec, lt))
            if src is None:
                continue
            seen = by_hops.setdefault(hops_of[src], [0, 0])
            seen[0] += 1
            seen[1] += i in gone
        check(len(by_hops) == 4, "sniffer at %s: senders at %s hops" % (at, sorted(by_hops)))
        for hops, (n, k) in sorted(by_hops.items()):
            want = 1 - (1 - p) * (1 - far) if hops > near_hops else p
            check(binomial_ok(k, n, want),
                  "sniffer at %s, near within %d: senders %d hops away lose %d of %d (%.4f, model %.4f +- %.4f)"
                  % (at, near_hops, hops, k, n, k / n, want, Z * math.sqrt(want * (1 - want) / n)))


def test_bad_options(sim, tmp):
    out = os.path.join(tmp, "bad.pcap")
    for args, words in ((["--sniffer-miss", "1"], "--sniffer-miss"),
                        (["--sniffer-miss", "-0.1"], "--sniffer-miss"),
                        (["--sniffer-miss", "nan"], "--sniffer-miss"),
                        (["--sniffer-far-miss", "1.5"], "--sniffer-far-miss"),
                        (["--sniffer-miss", "0.1", "--sniffer-burst", "inf"], "--sniffer-burst"),
                        (["--sniffer-miss", "0.1", "--sniffer-burst", "0.5"], "--sniffer-burst"),
                        (["--sniffer-miss", "0.1", "--link", "gateway"], "gateway"),
                        (["--sniffer-at", "router"], "--sniffer-at"),
                        (["--sniffer-position", "-1"], "--sniffer-position")):
        res = subprocess.run([sim, *args, "--quiet", "--output", out], capture_output=True, text=True)
        check(res.returncode == 1 and words in res.stderr and not os.path.exists(out),
              "%s: refused with %r, no capture written" % (" ".join(args), res.stderr.strip()))


def main():
    sim = sys.argv[1]
    with tempfile.TemporaryDirectory() as tmp:
        test_subsets(sim, tmp)
        test_rates(sim, tmp)
        test_bursts(sim, tmp)
        test_far(sim, tmp)
        test_bad_options(sim, tmp)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
