#!/usr/bin/env python3
"""test_timestamp_edges.py SANDBOX PLUGIN_SO METERSCOPE COMMITTED_DIR: the
frames of committed captures written again as pcapng with timestamps at the
edges: all at 2^63 us and more, after the year 9999, before 1970 (a
negative if_tsoffset), all zero, a clock set back an hour half-way, a jump
of ten years, and the same stamps in nanoseconds. tshark with the plugin
(-z meter,ota and -z meter,ota,tsv, one pass and -2) must exit 0 with
nothing from GLib or a sanitizer on stderr, never print "(null)", and give
no negative, NaN or infinite duration, rate or time; the frames the test
knows to be out of range, earlier than an earlier frame or stamped 0 carry
meter.time.out_of_range, meter.time.earlier or meter.time.zero, and the C
record counts them; the counts that do not depend on time are the truth's
(and the original's); nanosecond stamps give the original's records (times
within 1 us). The original, the same frames as pcapng with their stamps
unchanged, gives every transfer of the generator's truth with every on_air
number equal (tests/lib/ota_compare.py), so that it is a baseline. The
analyser on the same captures exits 0, prints no negative, NaN or infinite
figure (its JSON: every number finite and >= 0) and notes the stamps it
could not use."""
import json
import math
import os
import random
import re
import subprocess
import sys
import tempfile

from analyser_run import Analyser, prefs_args
from checks import Checks
from ota_compare import differences
from restamp import read_pcap, write_pcapng
from tshark_view import load_truth, ota_tsv, record_schema

US = 1000000
MAX_US = 253402300799 * US + 999999           # 9999-12-31T23:59:59.999999Z
# Frames that overlapped on the air, stamped at their start and written in the
# order they ended, go back by less than the longest frame's air time (127 +
# 6 bytes at 32 us): not "earlier" (docs/ota-sessions.md, "Timestamps").
OVERLAP_US = (127 + 6) * 32
YEAR_US = 365 * 86400 * US
STDERR_MARKS = ("CRITICAL", "WARNING", "runtime error:", "AddressSanitizer", "UndefinedBehaviorSanitizer",
                "(null)")
# The gateway's Ethernet capture (messages with no 802.15.4 frame) in fewer cases.
GATEWAY_CASES = ("beyond-2^63us", "set-back-1h", "nanoseconds")
# Counts that do not depend on the times, when every frame is still there.
TIMELESS = ("blocks", "bytes", "complete", "requests", "retransmissions", "rerequests", "datagrams_fragmented",
            "datagram_copies", "frames_sent")


def cases(stamps):
    """(name, stamps in units, tsresol, tsoffset, the stamps in us as the
    reader sees them, timeless counts kept) for each edge case."""
    n, mid = len(stamps), len(stamps) // 2
    rng = random.Random(15)
    back = [u if i < mid else u - 3600 * US for i, u in enumerate(stamps)]
    jump = [u if i < mid else u + 10 * YEAR_US for i, u in enumerate(stamps)]
    after_9999 = 300000000000 * US                  # the year 11476
    offset = -3 * 10 ** 9                          # seconds: the stamps fall in 1875
    return [
        ("beyond-2^63us", [u + (1 << 63) for u in stamps], 6, None, [u + (1 << 63) for u in stamps], True),
        ("after-9999", [u + after_9999 for u in stamps], 6, None, [u + after_9999 for u in stamps], True),
        ("before-1970", stamps, 6, offset, [u + offset * US for u in stamps], True),
        ("all-zero", [0] * n, 6, None, [0] * n, True),
        ("set-back-1h", back, 6, None, back, True),
        ("ten-year-jump", jump, 6, None, jump, False),
        ("nanoseconds", [u * 1000 + rng.randrange(1000) for u in stamps], 9, None, stamps, True),
    ]


def expected_status(us_stamps):
    """What each frame's stamp is to a clock that never goes back by more
    than a frame's air time: the frames out of range, earlier than the
    latest in-range stamp by more, and zero."""
    latest, out, earlier, zero = 0, [], [], []
    for i, u in enumerate(us_stamps, 1):
        if not 0 <= u <= MAX_US:
            out.append(i)
        elif u < latest - OVERLAP_US:
            earlier.append(i)
        else:
            latest = max(latest, u)
            if u == 0:
                zero.append(i)
    return {"meter.time.out_of_range": out, "meter.time.earlier": earlier, "meter.time.zero": zero}


def tshark(sandbox, so, cap, prefs, args):
    return subprocess.run([sandbox, so, "-n", "-r", cap] + prefs + args, capture_output=True, text=True)


def expert_summaries(sandbox, so):
    """The meter.time.* expert infos' texts, as the plugin registers them."""
    out = subprocess.run([sandbox, so, "-G", "fields"], capture_output=True, text=True).stdout
    rows = [line.split("\t") for line in out.splitlines()]
    return {r[2]: r[1] for r in rows if len(r) > 2 and r[2].startswith("meter.time.")}


def counts_record(text):
    names = None
    for line in text.splitlines():
        cells = line.split("\t")
        if cells[0] == "#C":
            names = cells[1:]
        elif cells[0] == "C" and names:
            return dict(zip(names, cells[1:]))
    return {}


def sane_records(check, label, transfers, points):
    """Every time and duration of the T and P records finite and not
    negative ("none", -1, only where the column is optional)."""
    columns = {c[0]: c for c in record_schema()["T"]}
    bad = []
    for t in transfers:
        for name, (_, kind, optional) in columns.items():
            v = t.get(name)
            if kind not in ("DBL", "I64") or v is None:
                continue
            if not math.isfinite(v) or (v < 0 and not (optional and v == -1)) or v > MAX_US:
                bad.append("T%s %s=%s" % (t["transfer"], name, v))
        if t["first_request_us"] > t["last_activity_us"] or \
                (t["last_response_us"] >= 0 and t["first_request_us"] > t["last_response_us"]):
            bad.append("T%s ends before it starts" % t["transfer"])
    bad += ["P %s ts_us=%s" % (p["transfer"], p["ts_us"]) for p in points if not 0 <= p["ts_us"] <= MAX_US]
    check(transfers and not bad, "%s: %d transfers, every time and duration finite and >= 0 %s"
          % (label, len(transfers), bad[:4]))


def quiet_stderr(check, label, res):
    marks = [m for m in STDERR_MARKS if m in res.stderr]
    check(res.returncode == 0 and not marks, "%s: exit %d, nothing from GLib or a sanitizer %s"
          % (label, res.returncode, (marks, res.stderr.strip()[:300]) if marks else ""))


def numbers(node):
    if isinstance(node, dict):
        for v in node.values():
            yield from numbers(v)
    elif isinstance(node, list):
        for v in node:
            yield from numbers(v)
    elif isinstance(node, (int, float)) and not isinstance(node, bool):
        yield node


NEGATIVE = re.compile(r"(?<![\w.:/-])-(?=\d|\.\d)|\b(nan|inf|infinity)\b", re.IGNORECASE)


def check_experts(check, label, sandbox, so, cap, prefs, status, summaries):
    """The frames with a meter.time.* expert info, in one pass and in -2 (from
    what the first pass kept), against those the stamps say; and one frame
    of each kind in -V."""
    either = " or ".join(status)
    for two_pass in ([], ["-2"]):
        res = tshark(sandbox, so, cap, prefs, two_pass + ["-Y", either, "-T", "fields", "-e", "frame.number",
                                                          "-e", "_ws.expert.message"])
        rows = [line.split("\t", 1) for line in res.stdout.splitlines()]
        for expert, frames in status.items():
            text = summaries.get(expert, "(%s is not registered)" % expert)
            got = [int(r[0]) for r in rows if len(r) == 2 and text in r[1]]
            check(res.returncode == 0 and got == frames, "%s%s: %s on the %d frames the stamps say (got %d)"
                  % (label, " -2" if two_pass else "", expert, len(frames), len(got)))
    for expert, frames in status.items():
        if frames:
            text = summaries.get(expert, "(%s is not registered)" % expert)
            res = tshark(sandbox, so, cap, prefs, ["-V", "-Y", "frame.number == %d" % frames[-1]])
            check(res.returncode == 0 and "[Expert Info" in res.stdout and text in res.stdout,
                  "%s -V: frame %d says '%s'" % (label, frames[-1], text))


def check_analyser(check, a, name, cap, prefs, status):
    res = a.run(["--no-progress"] + prefs + [cap])
    quiet_stderr(check, "analyser table " + name, res)
    hits = [line for line in res.stdout.splitlines() if NEGATIVE.search(line)]
    check(res.stdout and not hits, "analyser table %s: no negative, NaN or infinite figure %s" % (name, hits[:2]))
    wanted = [w for k, w in (("meter.time.out_of_range", "before 1970 or after 9999"),
                             ("meter.time.earlier", "earlier than an earlier frame"),
                             ("meter.time.zero", "stamped 0")) if status[k]]
    check(all(w in res.stderr for w in wanted), "analyser %s: notes %s" % (name, wanted))
    res = a.run(["--no-progress", "--format", "json"] + prefs + [cap])
    quiet_stderr(check, "analyser json " + name, res)
    try:
        bad = [v for v in numbers(json.loads(res.stdout)) if not math.isfinite(v) or v < 0]
    except ValueError as e:
        bad = [str(e)]
    check(res.stdout and not bad, "analyser json %s: every number finite and >= 0 %s" % (name, bad[:4]))


def same_records(check, label, got, want):
    diffs = []
    for g, w in zip(got, want):
        for k, v in w.items():
            tol = 1e-6 if isinstance(v, float) else 1 if k.endswith("_us") else 0
            if isinstance(v, (int, float)) and not isinstance(v, bool):
                if abs(g.get(k, math.inf) - v) > tol:
                    diffs.append("T%s %s %s != %s" % (w["transfer"], k, g.get(k), v))
            elif g.get(k) != v:
                diffs.append("T%s %s %s != %s" % (w["transfer"], k, g.get(k), v))
    check(len(got) == len(want) and not diffs, "%s: the records of the microsecond original %s"
          % (label, diffs[:4]))


def visible_transfers(truth):
    """The truth's transfers a sniffer sees, in the order of their first request (the plugin's)."""
    return sorted((x for x in truth["transfers"] if x["on_air"]["requests"] > 0),
                  key=lambda x: x["on_air"]["first_request_us"])


def truth_records(check, label, transfers, truth):
    """The records of the unchanged stamps against the truth: each transfer
    in its order, every on_air number equal."""
    visible = visible_transfers(truth)
    bad = []
    for t, x in zip(transfers, visible):
        if (t["meter"], t["path"], t["first_request_us"]) != (x["meter"]["ipv6"], x["uri_path"],
                                                              x["on_air"]["first_request_us"]):
            bad.append("T%s is not the truth's transfer %d" % (t["transfer"], x["id"]))
        else:
            bad += ["T%s %s" % (t["transfer"], d) for d in differences(t, x, truth.get("timestamp", "end"))]
    check(len(transfers) == len(visible) and not bad, "%s: the truth's %d transfers, every on_air number equal %s"
          % (label, len(visible), bad[:4] if bad else ""))


def main():
    sandbox, so, analyser, committed = sys.argv[1:5]
    check = Checks()
    summaries = expert_summaries(sandbox, so)
    a = Analyser(analyser)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            os.chmod(tmp, 0o755)
            for base in ("default", "default-gateway"):
                src = os.path.join(committed, base + ".pcap")
                prefs = []
                for p in load_truth(src).get("wireshark_prefs", []):
                    prefs += ["-o", p]
                linktype, recs = read_pcap(src)
                stamps = [r[0] for r in recs]
                plain = os.path.join(tmp, base + ".pcapng")
                write_pcapng(plain, linktype, recs)
                res = tshark(sandbox, so, plain, prefs, ["-q", "-z", "meter,ota,tsv"])
                original, _ = ota_tsv(res.stdout)
                truth = load_truth(src)
                truth_records(check, "%s original" % base, original, truth)
                for name, units, tsresol, tsoffset, as_read, timeless in cases(stamps):
                    if base != "default" and name not in GATEWAY_CASES:
                        continue
                    label = "%s %s" % (base, name)
                    cap = os.path.join(tmp, "%s-%s.pcapng" % (base, name))
                    write_pcapng(cap, linktype, [(s, d, o) for s, (_, d, o) in zip(units, recs)], tsresol,
                                 tsoffset)
                    os.chmod(cap, 0o644)
                    status = expected_status(as_read)
                    res = tshark(sandbox, so, cap, prefs, ["-q", "-z", "meter,ota,tsv"])
                    quiet_stderr(check, label + " tsv", res)
                    transfers, points = ota_tsv(res.stdout) if res.returncode == 0 else ([], [])
                    sane_records(check, label, transfers, points)
                    c = counts_record(res.stdout)
                    for kind, column in (("out_of_range", "timestamps_out_of_range"),
                                         ("earlier", "timestamps_earlier"), ("zero", "timestamps_zero")):
                        want = len(status["meter.time." + kind])
                        check(c.get(column) == str(want), "%s: C record %s %s, %d wanted"
                              % (label, column, c.get(column), want))
                    if name == "nanoseconds":
                        same_records(check, label, transfers, original)
                    elif timeless:
                        got = [{k: t[k] for k in TIMELESS} for t in transfers]
                        want = [{k: t[k] for k in TIMELESS} for t in original]
                        true = [{k: x["on_air"][k] for k in TIMELESS} for x in visible_transfers(truth)]
                        check(got == want == true, "%s: the counts that do not depend on time are the truth's and "
                              "the original's" % label)
                    res = tshark(sandbox, so, cap, prefs, ["-q", "-z", "meter,ota"])
                    quiet_stderr(check, label + " table", res)
                    check_experts(check, label, sandbox, so, cap, prefs, status, summaries)
                    if base == "default":
                        check_analyser(check, a, label, a.copy(cap), prefs_args(load_truth(src)), status)
    finally:
        a.close()
    return check.summary("timestamp_edges")


if __name__ == "__main__":
    sys.exit(main())
