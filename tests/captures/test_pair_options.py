#!/usr/bin/env python3
"""test_pair_options.py METER_SIM: meter-sim --gateway-output, the gateway's
Ethernet of the same run beside the radio capture. Without clock or backhaul
options the two files are byte for byte the run's --link 195 and --link
gateway captures; with them the radio capture is unchanged until a backhaul
loss changes what the meter does, the gateway capture's stamps are the truth's
true gateway times through the stated offset and drift (read with stock
tshark), it holds exactly the truth's messages that reached the gateway, the
backhaul's losses and extra delays follow their options, and every bad option
is refused before anything is written."""
import json
import os
import subprocess
import sys
import tempfile

from checks import Checks

check = Checks()


def run(sim, args):
    return subprocess.run([sim, "-q"] + args, capture_output=True, text=True, timeout=300)


def stamps(path):
    out = subprocess.run(["tshark", "-n", "-r", path, "-T", "fields", "-e", "frame.time_epoch"],
                         capture_output=True, text=True, check=True, timeout=300).stdout.split()
    return [round(float(x) * 1e6) for x in out]


def same(a, b):
    with open(a, "rb") as f, open(b, "rb") as g:
        return f.read() == g.read()


def main():
    sim = sys.argv[1]
    tmp = tempfile.mkdtemp(prefix="meterscope-pair-")
    p = lambda n: os.path.join(tmp, n)
    for seed, scen in ((1, "default"), (3, "multihop")):
        base = ["--scenario", scen, "--seed", str(seed)]
        run(sim, base + ["--output", p("radio.pcap")])
        run(sim, base + ["--output", p("gw-alone.pcap"), "--link", "gateway"])
        r = run(sim, base + ["--output", p("pair-r.pcap"), "--gateway-output", p("pair-g.pcap")])
        check(r.returncode == 0, "%s: --gateway-output runs (%s)" % (scen, r.stderr.strip()))
        check(same(p("radio.pcap"), p("pair-r.pcap")), "%s: the radio capture is the plain run's, byte for byte" % scen)
        check(same(p("gw-alone.pcap"), p("pair-g.pcap")),
              "%s: the gateway capture is the --link gateway run's, byte for byte" % scen)

        # A clock and a backhaul.
        r = run(sim, base + ["--output", p("c-r.pcap"), "--gateway-output", p("c-g.pcap"),
                             "--gateway-clock-offset-ms", "-3600000.25", "--gateway-clock-drift-ppm", "75",
                             "--backhaul-loss", "0.2", "--backhaul-delay-ms", "50"])
        check(r.returncode == 0, "%s: with a clock and a backhaul (%s)" % (scen, r.stderr.strip()))
        truth = json.load(open(p("c-r.pcap.truth.json")))
        pair = truth["pair"]
        clock = pair["gateway_clock"]
        at_gw = sorted(m["gateway_stamp_us"] for m in pair["messages"] if m["gateway_true_us"] is not None)
        gw = sorted(stamps(p("c-g.pcap")))
        check(gw == at_gw, "%s: the gateway capture holds the truth's %d messages at the gateway, at their stamps "
              "(capture %d)" % (scen, len(at_gw), len(gw)))
        off = [m["gateway_stamp_us"] - m["gateway_true_us"] - (clock["offset_ms"] * 1e3 + clock["drift_ppm"] * 1e-6 *
               (m["gateway_true_us"] - clock["reference_us"])) for m in pair["messages"] if m["gateway_true_us"]]
        check(off and max(abs(x) for x in off) <= 1, "%s: each stamp is its true time through offset and drift "
              "(worst %.1f us)" % (scen, max(abs(x) for x in off)))
        crossing = [m for m in pair["messages"] if m["lost"] in ("backhaul", None, "in_flight")
                    and (m["direction"] == "down" or m["lost"] is not None or m["gateway_true_us"])]
        lost = sum(1 for m in crossing if m["lost"] == "backhaul")
        n = len(crossing)
        check(abs(lost - 0.2 * n) <= 4 * (n * 0.2 * 0.8) ** 0.5,
              "%s: the backhaul lost %d of %d crossing it (P 0.2: within 4 standard deviations)" % (scen, lost, n))
        legs = [m["backhaul_s"] for m in pair["messages"] if m["backhaul_s"] is not None and m["direction"] == "up"]
        # Up, the leg is the Internet's one way (20 +- 10 ms) plus the extra 0-50 ms, and the
        # border router's MAC retries of its ACK-less last frame (under a second).
        check(legs and min(legs) >= 0.010 - 1e-6 and max(legs) <= 0.030 + 0.050 + 1.0,
              "%s: upward backhaul legs within the Internet's 10-30 ms plus 0-50 ms: %.1f-%.1f ms"
              % (scen, min(legs) * 1e3, max(legs) * 1e3))
        for m in pair["messages"]:
            if m["lost"] is None and m["direction"] == "up" and m["on_air"] != "complete":
                check(False, "%s: a delivered upward message complete on the air" % scen)
                break

    bad = [
        (["--backhaul-loss", "1"], "--backhaul-loss"),
        (["--backhaul-loss", "nan"], "--backhaul-loss"),
        (["--backhaul-delay-ms", "-1"], "--backhaul-delay-ms"),
        (["--gateway-clock-offset-ms", "5"], "--gateway-output"),
        (["--gateway-output", p("x-g.pcap"), "--gateway-clock-drift-ppm", "1e6"], "--gateway-clock-drift-ppm"),
        (["--gateway-output", p("x-g.pcap"), "--link", "gateway"], "--link gateway"),
        (["--gateway-output", p("x-r.pcap")], "another file"),
    ]
    for args, words in bad:
        for f in ("x-r.pcap", "x-g.pcap", "x-r.pcap.truth.json"):
            if os.path.exists(p(f)):
                os.unlink(p(f))
        r = run(sim, ["--output", p("x-r.pcap")] + args)
        written = [f for f in ("x-r.pcap", "x-g.pcap", "x-r.pcap.truth.json") if os.path.exists(p(f))]
        check(r.returncode == 1 and words in r.stderr and not written,
              "%s: refused, says '%s' (%s), nothing written %s" % (" ".join(args), words, r.stderr.strip(), written))
    subprocess.run(["rm", "-rf", tmp])
    return check.summary("captures.pair_options")


if __name__ == "__main__":
    sys.exit(main())
