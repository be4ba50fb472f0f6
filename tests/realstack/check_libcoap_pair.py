#!/usr/bin/env python3
"""check_libcoap_pair.py METERSCOPE RUN...: the two-vantage report of a real
CoAP stack's captures (libcoap's client and server, test_libcoap_block2.sh:
RUN-meter.pcap on the client's veth, RUN-gateway.pcap on the server's
loopback, the lossy relay between them) against the relay's log, RUN.log.

meterscope --vantage meter=RUN-meter.pcap --vantage gateway=RUN-gateway.pcap
must find, per direction and per message (Message ID and code), as many
transmissions delivered as the relay forwarded and as many lost between the
two points as it dropped (or still held when it stopped); each delivered
one's leg must be the delay the relay gave it, within the clock bound the
report states and a millisecond of the hosts' own handling; and the clock
offset, which is zero (both captures are on one host's clock, the analyser
is not told), within that bound."""
import collections
import json
import sys

from analyser_run import Analyser
from checks import Checks

check = Checks()
HANDLING_S = 0.002   # kernel and capture between the relay's stamp and dumpcap's


def read_log(path):
    out = []
    with open(path) as f:
        for line in f:
            kv = dict(w.split("=", 1) for w in line.split() if "=" in w)
            kv["t"] = float(kv["t"])
            kv["sent"] = float(kv["sent"]) if "sent" in kv else None
            out.append(kv)
    return sorted(out, key=lambda r: r["t"])


def code_number(text):
    cls, detail = text.split(".")
    return int(cls) * 32 + int(detail)


def check_run(a, run):
    name = run.rsplit("/", 1)[-1]
    meter, gateway = a.copy(run + "-meter.pcap", name + "-meter.pcap"), a.copy(run + "-gateway.pcap", name + "-gw.pcap")
    r = a.run(["--format", "json", "--vantage", "meter=" + meter, "--vantage", "gateway=" + gateway], timeout=300)
    check(r.returncode == 0, "%s: the pairing report is written (exit %d: %s)" % (name, r.returncode, r.stderr.strip()))
    if r.returncode:
        return
    rep = json.loads(r.stdout)
    bound = rep["clock"]["bound_s"]
    log = [d for d in read_log(run + ".log") if d["type"] != "?"]
    want = collections.Counter()
    delays = collections.defaultdict(list)
    for d in log:
        direction = "up" if d["dir"] == "c2s" else "down"
        key = (direction, int(d["mid"]), code_number(d["code"]))
        fate = "delivered" if d["action"] == "forwarded" else "lost_backhaul"
        want[key + (fate,)] += 1
        if fate == "delivered":
            delays[key].append(d["sent"] - d["t"])
    got = collections.Counter((m["direction"], m["mid"], m["code"], m["fate"]) for m in rep["messages"])
    diff = (want - got) + (got - want)
    check(not diff, "%s: per message and direction, %d delivered and %d lost between the two points, as the relay's "
          "log (%s)" % (name, sum(v for k, v in got.items() if k[3] == "delivered"),
                        sum(v for k, v in got.items() if k[3] == "lost_backhaul"), dict(list(diff.items())[:6])))
    for d in ("up", "down"):
        lost = sum(v for k, v in want.items() if k[0] == d and k[3] == "lost_backhaul")
        check(sum(t[d]["lost_backhaul"] for t in rep["transfers"]) + sum(
              1 for m in rep["messages"] if m["direction"] == d and m["fate"] == "lost_backhaul" and not m["transfer"])
              == lost, "%s: %s: the transfers count the relay's %d losses" % (name, d, lost))
    # The stated bound is the report's own, and the legs below are held to
    # it: it is capped by the relay's log. Any message up and any message
    # down bound the offset between them to half their two delays (the
    # report adds what a drift over the capture could move it); a bound
    # wider than the slowest round trip the relay made (and the hosts'
    # handling) would not have used even the worst pair.
    cap = (max(max(v) for k, v in delays.items() if k[0] == "up") +
           max(max(v) for k, v in delays.items() if k[0] == "down")) + HANDLING_S
    check(bound <= cap, "%s: the stated clock bound +-%.1f ms is within the slowest round trip through the "
          "relay, %.1f ms" % (name, bound * 1e3, cap * 1e3))
    legs = collections.defaultdict(list)
    for m in rep["messages"]:
        if m["fate"] == "delivered" and not m["ambiguous"]:
            legs[(m["direction"], m["mid"], m["code"])].append(m["backhaul_leg_s"])
    # A message the relay passed once, its bytes never sent again, has one
    # copy at each end: its pairing cannot be ambiguous.
    sent = collections.Counter((("up" if d["dir"] == "c2s" else "down"), int(d["mid"]), code_number(d["code"]))
                               for d in log)
    singles = [k for k, v in delays.items() if sent[k] == 1 and len(v) == 1]
    missing = [k for k in singles if k not in legs]
    worst, n, beyond = 0.0, 0, 0
    for key, got_legs in legs.items():
        # The relay keeps each direction in order: the k-th forwarded is the k-th delivered.
        for g, w in zip(sorted(got_legs), sorted(delays[key])):
            n += 1
            worst = max(worst, abs(g - w))
            beyond += abs(g - w) > bound + HANDLING_S
    check(singles and not missing and beyond == 0,
          "%s: %d legs (every one of the %d messages the relay passed once among them%s) the relay's delays within "
          "the stated +-%.1f ms (+%.0f ms handling; worst %.1f ms)" % (
              name, n, len(singles), ": not %s" % missing[:3] if missing else "", bound * 1e3, HANDLING_S * 1e3,
              worst * 1e3))
    check(abs(rep["clock"]["offset_s"]) <= bound + HANDLING_S,
          "%s: the clocks' offset %.6f s, truly 0, within the bound" % (name, rep["clock"]["offset_s"]))


def main():
    a = Analyser(sys.argv[1])
    try:
        for run in sys.argv[2:]:
            check_run(a, run)
    finally:
        a.close()
    return check.summary("check_libcoap_pair")


if __name__ == "__main__":
    sys.exit(main())
