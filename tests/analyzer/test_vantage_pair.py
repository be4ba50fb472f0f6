#!/usr/bin/env python3
"""test_vantage_pair.py METERSCOPE METER_SIM: the two-vantage report
(meterscope --vantage radio=FILE --vantage gateway=FILE) against the
generator's truth. meter-sim writes both sides of one run (--gateway-output),
the gateway's clock offset and drifting, its backhaul losing and delaying;
its truth's pair section says, per CoAP transmission, where it was lost and
how long its radio and backhaul legs took.

Checked: per direction, the counts of transmissions delivered, lost on the
radio and lost on the backhaul (or in the border router) are the truth's
exactly, over the transmissions either capture can show (one that never got
a frame on the air, its sender's channel access failing, is in neither); every
reported message seen on the air is one of the truth's, at its very radio
stamps, with its radio leg exact and its backhaul leg and aligned gateway time
within the clock bound the report states; the estimated offset is within that
bound of the true one over the capture, the drift within its stated bound.
The bounds are the report's own claims, so each is capped by what the truth's
legs allow (clock_cap). And the refusals: two captures that share nothing, a
missing capture, the two swapped, bad --vantage arguments."""
import json
import os
import subprocess
import sys

from analyser_run import Analyser, prefs_args
from checks import Checks

check = Checks()
FATES = ("delivered", "lost_radio", "lost_backhaul")
RUNS = [
    # name, meter-sim arguments, gateway clock offset (ms) and drift (ppm)
    ("default-s1", ["--scenario", "default", "--seed", "1"], 3700.5, 40),
    ("default-s2", ["--scenario", "default", "--seed", "2", "--backhaul-delay-ms", "80"], -250.25, -25),
    ("multihop", ["--scenario", "multihop", "--seed", "3"], -7200000.0, 80),
    ("long", ["--scenario", "default", "--seed", "4", "--downloads", "3", "--download-interval", "600",
              "--image-size", "4096"], 12.0, 150),
    ("separate", ["--scenario", "router", "--seed", "6", "--separate-p", "0.3"], 999.0, -5),
    # 2-5 s each way: answers come after their requests were sent again (late, not lost)
    ("slow-backhaul", ["--scenario", "slow-backhaul", "--seed", "7", "--image-size", "8192"], 61000.0, 20),
]


def generate(sim, tmp, name, args, offset_ms, ppm, loss="0.1", delay=None):
    radio, gateway = os.path.join(tmp, name + "-radio.pcap"), os.path.join(tmp, name + "-gw.pcap")
    extra = [] if "--backhaul-delay-ms" in args else ["--backhaul-delay-ms", delay or "30"]
    subprocess.run([sim, "-q", "--output", radio, "--gateway-output", gateway, "--gateway-clock-offset-ms",
                    str(offset_ms), "--gateway-clock-drift-ppm", str(ppm), "--backhaul-loss", loss] + extra + args,
                   check=True, timeout=300)
    for f in (radio, gateway):
        os.chmod(f, 0o644)
    with open(radio + ".truth.json") as f:
        return radio, gateway, json.load(f)


def truth_fate(m):
    """What the captures can tell of a truth message: None when neither shows it."""
    if m["direction"] == "up":
        if m["lost"] is None:
            return "delivered"
        if m["lost"] == "radio":
            return None if m["on_air"] == "none" else "lost_radio"
        return "lost_backhaul"   # backhaul, or still on its way when the run ended (in_flight)
    if m["lost"] is None:
        return "delivered"
    return "lost_radio" if m["lost"] == "radio" else "lost_backhaul"


def message_key(m, node):
    """A message: its direction, Thread node, Message ID, code and token."""
    return (m["direction"], node, m["mid"], m["code"], m["token"])


def truth_late(truth, skip):
    """Per direction, the delivered transmissions whose sender sent the same
    message again before they arrived, from the truth's own stamps; not
    those of the messages in skip."""
    late = {"up": 0, "down": 0}
    rounds = {}
    for m in truth["pair"]["messages"]:
        rounds.setdefault(message_key(m, m["ipv6"]), []).append(m)
    for key, ms in rounds.items():
        d = key[0]
        if key in skip:
            continue
        for m in ms:
            if truth_fate(m) != "delivered":
                continue
            if d == "up":
                arrived = m["gateway_true_us"]
                again = [o["radio_first_us"] for o in ms if o["round"] > m["round"] and o["radio_first_us"]]
            else:
                arrived = m["radio_last_us"]
                again = [o["gateway_true_us"] for o in ms if o["round"] > m["round"]]
            late[d] += any(t < arrived for t in again)
    return late


def clock_cap(truth):
    """(seconds, ppm): caps on the report's clock bounds from the truth's own
    legs. A delivered message up says the gateway's clock was read after the
    border router had it, one down that it was read before the radio had it,
    so an offset both captures allow is within the narrowest up leg plus the
    narrowest down leg of the true one; a stated bound wider than that is
    not what the pairing can tell. A drift error beyond that cap over the
    capture's span would take the offset past it."""
    ms = [m for m in truth["pair"]["messages"] if m["lost"] is None and m["backhaul_s"] is not None]
    cap = min(m["backhaul_s"] for m in ms if m["direction"] == "up") + \
        min(m["backhaul_s"] for m in ms if m["direction"] == "down")
    sent = [m["sent_us"] for m in truth["pair"]["messages"]]
    return cap, cap / ((max(sent) - min(sent)) / 1e6) * 1e6


def true_offset_s(truth, t_us):
    clock = truth["pair"]["gateway_clock"]
    return clock["offset_ms"] / 1e3 + clock["drift_ppm"] * 1e-6 * (t_us - clock["reference_us"]) / 1e6


def check_run(a, sim, name, args, offset_ms, ppm, ambiguity_allowed):
    radio, gateway, truth = generate(sim, a.tmp, name, args, offset_ms, ppm)
    r = a.run(prefs_args(truth) + ["--format", "json", "--vantage", "radio=" + radio, "--vantage",
                                   "gateway=" + gateway], timeout=300)
    check(r.returncode == 0, "%s: the report is written (exit %d: %s)" % (name, r.returncode, r.stderr.strip()))
    if r.returncode:
        return
    rep = json.loads(r.stdout)
    check(rep["format"] == "meterscope-pair" and rep["version"] == 1, "%s: format and version" % name)
    cap_s, cap_ppm = clock_cap(truth)
    bound = min(rep["clock"]["bound_s"], cap_s)
    tol = bound + 2e-6
    msgs = rep["messages"]
    # Where the clocks' bound is near the time between two sends of the same
    # bytes (seconds of backhaul), the report says which pairings could be
    # the other way round; the legs and lateness of those are not checked.
    ambiguous = {message_key(m, m["node"]) for m in msgs if m["ambiguous"]}
    check(ambiguity_allowed or not ambiguous, "%s: no pairing ambiguous (%d messages)" % (name, len(ambiguous)))

    for d in ("up", "down"):
        want = {f: 0 for f in FATES}
        for m in truth["pair"]["messages"]:
            f = truth_fate(m)
            if m["direction"] == d and f:
                want[f] += 1
        got = {f: sum(1 for m in msgs if m["direction"] == d and m["fate"] == f) for f in FATES}
        others = [m for m in msgs if m["direction"] == d and m["fate"] not in FATES]
        check(got == want and not others, "%s: %s: delivered, lost on the radio, lost on the backhaul %s, truth %s%s"
              % (name, d, got, want, " and %d not in one capture" % len(others) if others else ""))
        per_transfer = {f: sum(t[d][f] for t in rep["transfers"]) for f in FATES}
        in_transfers = {f: sum(1 for m in msgs if m["direction"] == d and m["fate"] == f and m["transfer"])
                        for f in FATES}
        check(per_transfer == in_transfers, "%s: %s: the transfers' counts add up to their messages'" % (name, d))
        late = sum(1 for m in msgs if m["direction"] == d and m["late"] and message_key(m, m["node"]) not in ambiguous)
        want_late = truth_late(truth, ambiguous)[d]
        check(late == want_late, "%s: %s: %d late, truth %d" % (name, d, late, want_late))
    for t in rep["transfers"]:
        parts = t["backhaul_up_s"] + t["gateway_s"] + t["backhaul_down_s"]
        check(abs(parts - t["network_s"]) <= 1e-3 + 1e-5 * t["network_s"],
              "%s: transfer %d: the network's %.6f s are its backhaul legs and the gateway's time (%.6f s)"
              % (name, t["transfer"], t["network_s"], parts))

    # Legs, message by message: the radio stamps are the truth's own.
    by_stamp = {}
    for m in truth["pair"]["messages"]:
        if m["radio_first_us"] is not None:
            by_stamp.setdefault((m["direction"], m["radio_first_us"]), []).append(m)
    unmatched, radio_bad, backhaul_bad, aligned_bad, worst = 0, 0, 0, 0, 0.0
    legs = 0
    for m in msgs:
        if m["radio_first_us"] is None or message_key(m, m["node"]) in ambiguous:
            continue
        cands = [t for t in by_stamp.get((m["direction"], m["radio_first_us"]), [])
                 if m["mid"] is None or t["mid"] == m["mid"]]
        if len(cands) != 1:
            unmatched += 1
            continue
        t = cands[0]
        if m["radio_leg_s"] is not None and t["radio_s"] is not None and abs(m["radio_leg_s"] - t["radio_s"]) > 2e-6:
            radio_bad += 1
        if m["backhaul_leg_s"] is not None and m["fate"] == "delivered":
            legs += 1
            err = abs(m["backhaul_leg_s"] - t["backhaul_s"])
            worst = max(worst, err)
            backhaul_bad += err > tol
        if m["gateway_us"] is not None:
            aligned_bad += t["gateway_stamp_us"] != m["gateway_us"] or \
                abs(m["gateway_aligned_us"] - t["gateway_true_us"]) / 1e6 > tol
    check(unmatched == 0, "%s: every message seen on the air is one of the truth's at its radio stamp (%d not)"
          % (name, unmatched))
    check(radio_bad == 0, "%s: radio legs exact (%d off)" % (name, radio_bad))
    check(legs >= 10 and backhaul_bad == 0, "%s: %d backhaul legs within the stated +-%.1f ms of the truth, capped at "
          "%.1f ms (worst %.1f ms, %d beyond)" % (name, legs, rep["clock"]["bound_s"] * 1e3, cap_s * 1e3, worst * 1e3,
                                                  backhaul_bad))
    check(aligned_bad == 0, "%s: gateway stamps the truth's, aligned within the bound (%d off)" % (name, aligned_bad))
    t0 = rep["clock"]["reference_us"]
    span_us = rep["clock"]["span_s"] * 1e6
    est = lambda t: rep["clock"]["offset_s"] + rep["clock"]["drift_ppm"] * 1e-6 * (t - t0) / 1e6
    off = max(abs(est(t0 + k * span_us / 10) - true_offset_s(truth, t0 + k * span_us / 10)) for k in range(11))
    check(off <= tol, "%s: offset %.6f s within +-%.1f ms of the true one over the capture (off by %.1f ms)"
          % (name, rep["clock"]["offset_s"], bound * 1e3, off * 1e3))
    drift_err = abs(rep["clock"]["drift_ppm"] - truth["pair"]["gateway_clock"]["drift_ppm"])
    check(drift_err <= min(rep["clock"]["drift_bound_ppm"], cap_ppm) + 1e-3, "%s: drift %.3f ppm within the stated "
          "+-%.3f, capped at %.3f, of the true %s" % (name, rep["clock"]["drift_ppm"], rep["clock"]["drift_bound_ppm"],
                                                      cap_ppm, truth["pair"]["gateway_clock"]["drift_ppm"]))
    return rep


def refusals(a, sim):
    radio, gateway, truth = generate(sim, a.tmp, "r1", ["--seed", "1"], 0, 0)
    other_r, other_g, _ = generate(sim, a.tmp, "r9", ["--seed", "9"], 0, 0)
    prefs = prefs_args(truth)
    cases = [
        ("captures sharing nothing", ["--vantage", "radio=" + radio, "--vantage", "gateway=" + other_g], 2,
         "share no CoAP message"),
        ("a missing capture", ["--vantage", "radio=" + radio, "--vantage", "gateway=" + a.tmp + "/none.pcap"], 2,
         "none.pcap"),
        ("the two swapped", ["--vantage", "radio=" + gateway, "--vantage", "gateway=" + radio], 2,
         "no IEEE 802.15.4 frame"),
        ("one vantage point", ["--vantage", "radio=" + radio], 1, "one gateway=FILE"),
        ("an unknown vantage name", ["--vantage", "radio=" + radio, "--vantage", "cloud=" + gateway], 1,
         "wants radio=FILE, meter=FILE or gateway=FILE"),
        ("a capture besides", ["--vantage", "radio=" + radio, "--vantage", "gateway=" + gateway, other_r], 1,
         "none on its own"),
    ]
    for what, args, code, words in cases:
        r = a.run(prefs + args, timeout=300)
        check(r.returncode == code and words in r.stderr and not r.stdout,
              "%s: exit %d (got %d), says '%s' (%s)" % (what, code, r.returncode, words, r.stderr.strip()[:200]))
    leftovers = [f for f in os.listdir(a.tmp) if f.startswith("meterscope-")]
    check(not leftovers, "no temporaries left (%s)" % leftovers)


def main():
    a = Analyser(sys.argv[1])
    sim = sys.argv[2]
    try:
        for name, args, offset, ppm in RUNS:
            check_run(a, sim, name, args, offset, ppm, name == "slow-backhaul")
        refusals(a, sim)
    finally:
        a.close()
    return check.summary("analyzer.vantage_pair")


if __name__ == "__main__":
    sys.exit(main())
