#!/usr/bin/env python3
"""check_libcoap_block2.py METERSCOPE IMAGE RUN...: for each RUN (a path
prefix: RUN.log is the relay's log, RUN-meter.pcap and RUN-gateway.pcap the
captures on either side of it; see test_libcoap_block2.sh), the analyser's
report on each capture against what the relay's log says happened.

What passed each capture point is known from the log alone: the meter
capture (the client's veth, before the relay) sees every request the client
sent, at the relay's receive time, and every response the relay forwarded,
at its send time; the gateway capture (the server's loopback, after the
relay) sees every request the relay forwarded, at its send time, and every
response the server sent, at the relay's receive time. Each capture is first
checked to hold exactly those datagrams; the stamps of the pairs give the
clock offset between capture and log, whose spread bounds the error of any
stretch measured on one and computed from the other (below).

Per capture the analyser must find one transfer, complete, with the image's
blocks and bytes, and the counts of docs/ota-sessions.md as the log gives
them (requests, retransmissions, spurious ones, re-requests, duplicate
responses), the time split within tolerance (timeouts: the waits after
rounds the relay dropped, or whose answer it dropped; network; turn-around;
at the gateway, time_unseen_s: the waits after requests dropped before they
reached the server, and the vantage), its parts adding up to duration_s, and
the verdict's cause as the log tells it (compare())."""
import json
import math
import os
import struct
import sys

from analyser_run import Analyser

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from udp_relay import describe  # noqa: E402  (the relay's own CoAP parser)

ACK_TIMEOUT = 2.0
PARTS = ("time_air_s", "time_timeouts_s", "time_network_s", "time_turnaround_s", "time_poll_s", "time_unseen_s")


# ---------------------------------------------------------------- inputs

def read_log(path):
    out = []
    with open(path) as f:
        for line in f:
            kv = dict(w.split("=", 1) for w in line.split() if "=" in w)
            kv["t"] = float(kv["t"])
            kv["sent"] = float(kv["sent"]) if "sent" in kv else None
            kv["is_request"] = kv["code"].startswith("0.") and kv["code"] != "0.00"
            kv["is_response"] = kv["code"] != "-" and not kv["code"].startswith("0.")
            out.append(kv)
    out.sort(key=lambda r: r["t"])
    return out


def read_pcap(path):
    """(time, CoAP fields, length) of each UDP/IPv6 datagram of a classic
    pcap on Ethernet (dumpcap -P; Linux lo is Ethernet too)."""
    with open(path, "rb") as f:
        data = f.read()
    magic, = struct.unpack("<I", data[:4])
    if magic != 0xA1B2C3D4:
        raise ValueError("%s: not a little-endian microsecond pcap" % path)
    linktype, = struct.unpack("<I", data[20:24])
    if linktype != 1:
        raise ValueError("%s: link type %d, not Ethernet" % (path, linktype))
    pos, out = 24, []
    while pos + 16 <= len(data):
        sec, usec, incl, _ = struct.unpack("<IIII", data[pos:pos + 16])
        frame = data[pos + 16:pos + 16 + incl]
        pos += 16 + incl
        if frame[12:14] != b"\x86\xdd" or frame[14 + 6] != 17:
            continue
        payload = frame[14 + 40 + 8:]
        out.append((sec + usec / 1e6, describe(payload), len(payload)))
    return out


# ---------------------------------------------------------------- the log's account

class Exchange:
    """One request message (MID) as the log tells it."""

    def __init__(self, mid, block):
        self.mid, self.block = mid, block
        self.rounds = []      # c2s datagrams, in order
        self.responses = []   # s2c datagrams with a response code, in order

    def forwarded_rounds(self):
        return [r for r in self.rounds if r["action"] == "forwarded"]

    def answer_of(self):
        """Round index (into rounds) -> its response datagram. The server
        answers every request it gets, in order (checked), so the n-th
        forwarded round owns the n-th response."""
        fwd = [i for i, r in enumerate(self.rounds) if r["action"] == "forwarded"]
        return dict(zip(fwd, self.responses))


def exchanges(log):
    ex = {}
    for r in log:
        if r["is_request"] and r["dir"] == "c2s":
            e = ex.setdefault(r["mid"], Exchange(r["mid"], r["block2"]))
            e.rounds.append(r)
        elif r["is_response"] and r["dir"] == "s2c":
            if r["mid"] not in ex:
                raise AssertionError("a response to MID %s, never requested" % r["mid"])
            ex[r["mid"]].responses.append(r)
    out = sorted(ex.values(), key=lambda e: e.rounds[0]["t"])
    for e in out:
        if len(e.responses) != len(e.forwarded_rounds()):
            raise AssertionError("MID %s: the server answered %d of %d requests it got: the log cannot "
                                 "tie answers to rounds" % (e.mid, len(e.responses), len(e.forwarded_rounds())))
    return out


def block_offset(b):
    num, _, size = (int(x) for x in b.split("/"))
    return num * size


def median(xs):
    s = sorted(xs)
    return s[max(0, math.ceil(0.5 * len(s)) - 1)] if s else None


def log_clock(side):
    """When a datagram passed SIDE, by the relay's clock: the meter side is
    before the relay, the gateway side after it."""
    if side == "meter":
        return lambda r: r["t"] if r["dir"] == "c2s" else r["sent"]
    return lambda r: r["sent"] if r["dir"] == "c2s" else r["t"]


def capture_clock(side):
    """When a datagram passed SIDE, by the capture's stamp of it."""
    return lambda r: r["cap_" + side]


def expect_meter(ex, at):
    """The numbers at the client's side, from the log (see the module doc),
    with the times AT gives."""
    n = dict(requests=0, retransmissions=0, spurious=0, rerequests=0, duplicates=0,
             timeouts=0.0, network=0.0, turnaround=0.0, stretches=0)
    asked = set()
    prev_accept = None
    for e in ex:
        arrive = lambda resp: resp["sent"] if resp["action"] == "forwarded" else None  # noqa: E731
        answers = e.answer_of()
        n["requests"] += len(e.rounds)
        n["retransmissions"] += len(e.rounds) - 1
        off = block_offset(e.block)
        n["rerequests"] += off in asked
        asked.add(off)
        got = [resp for resp in e.responses if resp["action"] == "forwarded"]
        n["duplicates"] += max(0, len(got) - 1)
        accepted = min(got, key=lambda r: r["sent"])
        answered = next(i for i, resp in answers.items() if resp is accepted)
        for k in range(1, len(e.rounds)):
            # Spurious: an earlier round's answer was on its way, and came after.
            late = [answers[i] for i in range(k) if i in answers and arrive(answers[i]) is not None
                    and arrive(answers[i]) > e.rounds[k]["t"]]
            n["spurious"] += bool(late)
        for i in range(answered):
            # Every round before the answered one was dropped, or its answer was:
            # the log explains the wait to the next round.
            r = e.rounds[i]
            lost = r["action"] == "dropped" or answers[i]["action"] != "forwarded"
            if not lost:
                raise AssertionError("MID %s round %d: neither it nor its answer was dropped, yet it was "
                                     "not the one answered" % (e.mid, i + 1))
            n["timeouts"] += at(e.rounds[i + 1]) - at(r)
            n["stretches"] += 1
        n["network"] += at(accepted) - at(e.rounds[answered])
        if prev_accept is not None:
            n["turnaround"] += at(e.rounds[0]) - prev_accept
        prev_accept = at(accepted)
        n["stretches"] += 2
    n["duration"] = prev_accept - at(ex[0].rounds[0])
    n["unseen"] = 0.0
    n["vantage"] = "meter"
    return n


def expect_gateway(ex, at):
    """The numbers at the server's side, from the log: only forwarded
    requests passed there, and every response; with the times AT gives."""
    n = dict(requests=0, retransmissions=0, spurious=0, rerequests=0, duplicates=0,
             timeouts=0.0, network=0.0, stretches=0, explained=0.0, dropped_first=0)
    asked = set()
    turns = []
    prev_accept = None
    first = None
    for e in ex:
        fwd = e.forwarded_rounds()
        n["requests"] += len(fwd)
        n["retransmissions"] += max(0, len(fwd) - 1)
        n["duplicates"] += max(0, len(e.responses) - 1)
        off = block_offset(e.block)
        n["rerequests"] += off in asked
        asked.add(off)
        for k in range(1, len(fwd)):
            # At this point an answer passes right after its request: spurious
            # only if fewer answers than transmissions had passed.
            passed = sum(1 for resp in e.responses if resp["t"] < fwd[k]["sent"])
            n["spurious"] += passed < k
        # Accepted: the first response after which no round of the request came.
        last_round = fwd[-1]["sent"]
        accepted = next(resp for resp in e.responses if resp["t"] > last_round)
        answered = e.responses.index(accepted)
        for i in range(answered):
            n["timeouts"] += at(fwd[i + 1]) - at(fwd[i])
            n["stretches"] += 1
        n["network"] += at(accepted) - at(fwd[answered])
        if first is None:
            first = at(fwd[0])
        else:
            turns.append(at(fwd[0]) - prev_accept)
            # Requests the relay dropped before the first that got through:
            # the client's timeouts, invisible here (by the relay's clock
            # whatever AT is: the capture never saw these).
            if e.rounds[0]["action"] == "dropped":
                n["explained"] += fwd[0]["t"] - e.rounds[0]["t"]
                n["dropped_first"] += 1
        prev_accept = at(accepted)
        n["stretches"] += 2
    n["duration"] = prev_accept - first
    med = median(turns)
    # The contract's unseen time, computed on the log's own stretches.
    n["unseen"] = sum(t - med for t in turns if t - med >= ACK_TIMEOUT)
    # How far the turns with no wait in them stray from their median: the
    # client's own time and the relay's delays, as this run had them.
    plain = [t - med for t in turns if t - med < ACK_TIMEOUT]
    n["turn_spread"] = max(plain) - min(plain) if plain else 0.0
    n["turnaround"] = sum(turns) - n["unseen"]
    n["turnaround_median"] = med
    n["vantage"] = "gateway"
    return n


def match_capture(log, cap, side):
    """Pairs every datagram the log says passed SIDE with one of the
    capture's, in order; returns (offsets, problems)."""
    want = []
    for r in log:
        if side == "meter":
            if r["dir"] == "c2s":
                want.append((r["t"], r))
            elif r["action"] == "forwarded":
                want.append((r["sent"], r))
        else:
            if r["dir"] == "c2s" and r["action"] == "forwarded":
                want.append((r["sent"], r))
            elif r["dir"] == "s2c":
                want.append((r["t"], r))
    want.sort(key=lambda w: w[0])
    key = lambda f, ln: (f["type"], f["code"], f["mid"], f["token"], f["block2"], ln)  # noqa: E731
    pool = list(cap)
    offsets, problems = [], []
    for t, r in want:
        k = (r["type"], r["code"], r["mid"], r["token"], r["block2"], int(r["len"]))
        hit = next((c for c in pool if key(c[1], c[2]) == k), None)
        if hit is None:
            problems.append("%s capture lacks %s %s MID %s at %.6f" % (side, r["dir"], r["code"], r["mid"], t))
            continue
        pool.remove(hit)
        r["cap_" + side] = hit[0]
        offsets.append((hit[0] - t, "%s %s MID %s" % (r["dir"], r["code"], r["mid"])))
    for c in pool:
        problems.append("%s capture has a datagram the log does not: %s %s MID %s at %.6f"
                        % (side, c[1]["type"], c[1]["code"], c[1]["mid"], c[0]))
    return offsets, problems


# ---------------------------------------------------------------- the comparison

def compare(side, t, n, nl, spread, image_size, block_size):
    """The transfer T against the log's numbers N (times by the capture's
    stamps) and NL (times by the relay's clock)."""
    fails = []

    def eq(col, want):
        got = t.get(col, "<missing>")
        ok = got == want
        print("  %-5s %-8s %-24s meterscope %-10s log %s" % ("ok" if ok else "FAIL", side, col, got, want))
        if not ok:
            fails.append(col)

    def num(v):
        return "%.6f" % v if isinstance(v, (int, float)) and not isinstance(v, bool) else str(v)

    def near(col, want, tol, want_log=None, tol_log=None, clock="capture stamps"):
        got = t.get(col)
        ok = isinstance(got, (int, float)) and abs(got - want) <= tol
        line = "  %-5s %-8s %-24s meterscope %-10s log %s +- %s (%s)" % (
            "ok" if ok else "FAIL", side, col, num(got), num(want), num(tol), clock)
        if want_log is not None:
            ok_log = isinstance(got, (int, float)) and abs(got - want_log) <= tol_log
            ok = ok and ok_log
            line += "; relay clock %s +- %s%s" % (num(want_log), num(tol_log), "" if ok_log else " FAIL")
        print(line)
        if not ok:
            fails.append(col)

    eq("complete", True)
    eq("kind", "block2")
    eq("block_size", block_size)
    eq("blocks", math.ceil(image_size / block_size))
    eq("bytes", image_size)
    eq("requests", n["requests"])
    eq("retransmissions", n["retransmissions"])
    eq("spurious_retransmissions", n["spurious"])
    eq("rerequests", n["rerequests"])
    eq("duplicate_responses", n["duplicates"])
    eq("vantage", n["vantage"])
    # Tolerances. Timed by the capture's own stamps of the datagrams the log
    # names, a sum of k stretches is exact but for the report's 6 decimals:
    # 1 us per stretch. Timed by the relay's clock, each end of a stretch is
    # stamped on the capture at (log time + offset); the offsets of all the
    # capture's datagrams lie within `spread` (measured above: a few tens of
    # us typically, a few ms when the relay is scheduled late), so a
    # stretch is off by at most `spread` and a sum of k stretches by
    # k x spread.
    k = n["stretches"]
    tol, tol_log = 1e-6 * k, (spread + 1e-6) * k
    log_at = (lambda key: nl[key]) if nl is not None else (lambda key: None)
    near("duration_s", n["duration"], 2e-6, log_at("duration"), 2 * spread + 2e-6)
    for col, key in (("time_timeouts_s", "timeouts"), ("time_network_s", "network"),
                     ("time_turnaround_s", "turnaround"), ("time_unseen_s", "unseen")):
        near(col, n[key], tol, log_at(key), tol_log)
    near("time_air_s", 0.0, 0.0)
    near("time_poll_s", 0.0, 0.0)
    if side == "gateway" and n["dropped_first"] and nl is not None:
        # The unseen time stands for the client's timeouts after the
        # requests the relay dropped (the relay's own clock: these never
        # reached the capture). Each such stretch exceeds the median one by
        # that wait, give or take how much the client's own time and the
        # relay's delays moved a stretch: what the log's turns without a
        # wait show, measured in this run (a loaded machine moves them more).
        near("time_unseen_s", n["explained"], nl["turn_spread"] * n["dropped_first"] + tol_log,
             clock="relay clock: the client's waits after %d dropped requests, each +- %.1f ms as the log's other "
                   "turns strayed" % (n["dropped_first"], nl["turn_spread"] * 1e3))
    # The verdict's cause (docs/recommendation.md, "The verdict") as the
    # log tells it: requests sent again while their answers were only late
    # (the relay delayed, not dropped), else at the gateway nothing of the
    # client's side can be judged, else the largest of the log's waits.
    if n["spurious"] >= max(3, n["retransmissions"] / 2):
        cause = "spurious_retransmissions"
    elif side == "gateway":
        cause = "capture_imperfect"
    else:
        cause = max((("radio_loss", n["timeouts"] + n["unseen"]), ("backhaul", n["network"]),
                     ("turnaround", n["turnaround"])), key=lambda kv: kv[1])[0]
    verdict = t.get("verdict") or {}
    ok = verdict.get("cause") == cause
    print("  %-5s %-8s verdict %-16s meterscope %s; log %s: %s" % ("ok" if ok else "FAIL", side, "",
                                                                   verdict.get("cause"), cause,
                                                                   verdict.get("sentence")))
    if not ok:
        fails.append("verdict")
    parts = [t.get(p) for p in PARTS]
    if all(isinstance(p, (int, float)) for p in parts) and isinstance(t.get("duration_s"), (int, float)):
        ok = abs(sum(parts) - t["duration_s"]) <= 6e-6
        print("  %-5s %-8s the six parts add up to %.6f, duration_s %.6f"
              % ("ok" if ok else "FAIL", side, sum(parts), t["duration_s"]))
        if not ok:
            fails.append("parts")
    else:
        print("  FAIL  %-8s a time part is missing: %s" % (side, dict(zip(PARTS, parts))))
        fails.append("parts")
    return fails


def main():
    binary, image = sys.argv[1:3]
    image_size = os.path.getsize(image)
    a = Analyser(binary)
    failures = []
    try:
        for run in sys.argv[3:]:
            name = os.path.basename(run)
            log = read_log(run + ".log")
            ex = exchanges(log)
            block_size = int(ex[0].block.split("/")[2])
            print("%s: %d datagrams in the relay's log, %d dropped, %d request messages"
                  % (name, len(log), sum(r["action"] == "dropped" for r in log), len(ex)))
            lossy = "loss" in name
            if lossy:
                # The seed must have done its job: a request dropped that was
                # not the transfer's first, and a response dropped.
                req = any(r["action"] == "dropped" for e in ex[1:] for r in e.rounds)
                resp = any(r["action"] == "dropped" for e in ex for r in e.responses)
                if not (req and resp):
                    print("FAIL  %s: the relay dropped no %s: the run tests nothing"
                          % (name, "request" if not req else "response"))
                    failures.append(name)
            else:
                if not any(len(e.rounds) > 1 for e in ex):
                    print("FAIL  %s: no retransmission on the slow path" % name)
                    failures.append(name)
            for side, expect in (("meter", expect_meter), ("gateway", expect_gateway)):
                pcap = "%s-%s.pcap" % (run, side)
                offsets, problems = match_capture(log, read_pcap(pcap), side)
                for p in problems:
                    print("FAIL  " + p)
                if problems:
                    failures.append("%s %s capture" % (name, side))
                    continue
                lo, hi = min(offsets), max(offsets)
                spread = hi[0] - lo[0]
                print("  %s capture: %d datagrams, all in the log; capture minus log stamp %.0f us (%s) .. "
                      "%.0f us (%s), median %.0f us" % (side, len(offsets), lo[0] * 1e6, lo[1], hi[0] * 1e6, hi[1],
                                                        median([o[0] for o in offsets]) * 1e6))
                n = expect(ex, capture_clock(side))
                nl = expect(ex, log_clock(side))
                if spread > 0.02:
                    # The relay was scheduled late (a loaded machine): its clock
                    # says little within tens of ms. The times are still checked
                    # on the capture's stamps of the datagrams the log names,
                    # exactly; only the relay-clock comparisons are left out.
                    print("  note  %s %s: the capture and the log disagree by up to %.0f us: no comparison "
                          "on the relay's clock" % (name, side, spread * 1e6))
                    nl = None
                res = a.run(["--no-progress", "--format", "json", a.copy(pcap)])
                if res.returncode != 0:
                    print("FAIL  %s %s: meterscope exited %d: %s" % (name, side, res.returncode, res.stderr.strip()))
                    failures.append("%s %s" % (name, side))
                    continue
                transfers = json.loads(res.stdout)["captures"][0]["transfers"]
                if len(transfers) != 1:
                    print("FAIL  %s %s: %d transfers found, not 1" % (name, side, len(transfers)))
                    failures.append("%s %s" % (name, side))
                    continue
                bad = compare(side, transfers[0], n, nl, spread, image_size, block_size)
                if bad:
                    failures.append("%s %s: %s" % (name, side, ", ".join(bad)))
    finally:
        a.close()
    for f in failures:
        print("FAIL  " + f)
    print("%s: %d problems" % ("FAIL" if failures else "ok", len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
