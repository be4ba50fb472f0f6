#!/usr/bin/env python3
"""test_vantage_merged.py SANDBOX PLUGIN METER_SIM: a sniffer's capture and
the gateway's of the same run merged into one file with mergecap, as a GUI
user would, read by tshark -2 with the plugin: each CoAP message shows its
copy at the other vantage point (meter.vantage.other), checked against
meter-sim's pair truth (--gateway-output, the gateway's clock offset and
drifting, a backhaul that loses). Every pairing is right (the radio frame's
stamp within the truth message's air times, the IP frame's its gateway
stamp, the same Message ID), the gateway's copies of messages both ends hold
all show their radio copy (the few whose retransmissions are too close to
tell apart aside), none of those only one end holds shows one,
meter.vantage.delta is the two stamps' difference, and when the sniffer's
frames come first the transfers (-z meter,ota) are the sniffer's capture's,
the gateway's copies not counted twice."""
import json
import os
import subprocess
import sys
import tempfile

from checks import Checks

check = Checks()
FIELDS = ["frame.number", "frame.time_epoch", "frame.interface_id", "meter.vantage", "meter.vantage.other",
          "meter.vantage.delta", "meter.vantage.clock_offset", "udp.payload"]


def ota_table(sandbox, plugin, capture, truth):
    cmd = [sandbox, plugin, "-n", "-r", capture, "-q", "-z", "meter,ota"]
    for p in truth["wireshark_prefs"]:
        cmd += ["-o", p]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=600).stdout


def run_case(sandbox, plugin, sim, tmp, name, args, radio_first=True):
    radio, gw, merged = (os.path.join(tmp, name + s) for s in ("-r.pcap", "-g.pcap", "-m.pcapng"))
    subprocess.run([sim, "-q", "--output", radio, "--gateway-output", gw] + args, check=True, timeout=300)
    plain = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}
    subprocess.run(["mergecap", "-F", "pcapng", "-w", merged, radio, gw], check=True, timeout=120, env=plain)
    truth = json.load(open(radio + ".truth.json"))
    cmd = [sandbox, plugin, "-n", "-r", merged, "-2", "-T", "fields", "-E", "occurrence=f"]
    for p in truth["wireshark_prefs"]:
        cmd += ["-o", p]
    for f in FIELDS:
        cmd += ["-e", f]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    check(out.returncode == 0, "%s: tshark -2 reads the merged file (%s)" % (name, out.stderr.strip()[-200:]))
    rows = [line.split("\t") for line in out.stdout.splitlines()]
    frames = {int(r[0]): r for r in rows}
    stamp = lambda n: round(float(frames[n][1]) * 1e6)
    msgs = truth["pair"]["messages"]
    by_gw_stamp = {}
    for m in msgs:
        if m["gateway_stamp_us"] is not None:
            by_gw_stamp.setdefault(m["gateway_stamp_us"], []).append(m)

    wrong, delta_bad, shown_ip = 0, 0, 0
    for r in rows:
        if not r[4]:
            continue
        me, other = int(r[0]), int(r[4])
        radio_f, ip_f = (me, other) if r[3] == "0" else (other, me)
        # The radio frame: a copy of the message's round, or a MAC retry of one (within a second).
        cands = [m for m in by_gw_stamp.get(stamp(ip_f), [])
                 if m["radio_first_us"] is not None and
                 m["radio_first_us"] <= stamp(radio_f) <= m["radio_last_us"] + 1000000]
        same_bytes = frames[radio_f][7] == frames[ip_f][7]
        wrong += len(cands) != 1 or not same_bytes
        if len(cands) != 1 or not same_bytes:
            print("      frames %d (radio) and %d (IP): %d truth messages, same bytes %s" % (radio_f, ip_f, len(cands), same_bytes))
        delta_bad += abs(float(r[5]) - (stamp(me) - stamp(other)) / 1e6) > 2e-6
        shown_ip += r[3] == "1"
    check(wrong == 0, "%s: every copy shown is the same message at the other end (%d wrong)" % (name, wrong))
    check(delta_bad == 0, "%s: meter.vantage.delta is the two stamps' difference (%d off)" % (name, delta_bad))
    both = [m for m in msgs if m["gateway_stamp_us"] is not None and m["on_air"] == "complete"]
    # A message whose rounds are sent again within the backhaul's delay may pair otherwise: allow 5%.
    check(len(both) * 0.95 <= shown_ip <= len(both),
          "%s: %d of the %d messages both ends hold show their copy at the gateway" % (name, shown_ip, len(both)))
    only_ip = {m["gateway_stamp_us"] for m in msgs if m["gateway_stamp_us"] is not None and m["on_air"] != "complete"}
    alone_shown = sum(1 for r in rows if r[3] == "1" and r[4] and stamp(int(r[0])) in only_ip)
    check(alone_shown == 0, "%s: of %d messages only the gateway holds, %d show a copy" % (name, len(only_ip), alone_shown))
    if radio_first:
        # The gateway's clock ahead: the sniffer's frames come first in the merged file, and the
        # transfers are the radio's, the gateway's copies not counted again.
        alone, both_ends = ota_table(sandbox, plugin, radio, truth), ota_table(sandbox, plugin, merged, truth)
        check(alone.strip() and alone == both_ends, "%s: -z meter,ota of the merged file is the sniffer's capture's"
              "%s" % (name, "" if alone == both_ends else ":\n" + alone + "\n" + both_ends))
    ifaces = {r[2] for r in rows}
    check(ifaces == {"0", "1"}, "%s: the merged file has the two interfaces (%s)" % (name, sorted(ifaces)))


def main():
    sandbox, plugin, sim = sys.argv[1:4]
    tmp = tempfile.mkdtemp(prefix="meterscope-merged-")
    os.chmod(tmp, 0o755)
    try:
        run_case(sandbox, plugin, sim, tmp, "default", ["--seed", "1", "--gateway-clock-offset-ms", "3700.5",
                                                        "--gateway-clock-drift-ppm", "40", "--backhaul-loss", "0.1",
                                                        "--backhaul-delay-ms", "30"])
        run_case(sandbox, plugin, sim, tmp, "multihop", ["--scenario", "multihop", "--seed", "3",
                                                         "--gateway-clock-offset-ms", "-90000",
                                                         "--backhaul-loss", "0.1"], radio_first=False)
    finally:
        subprocess.run(["rm", "-rf", tmp])
    return check.summary("plugin.vantage_merged")


if __name__ == "__main__":
    sys.exit(main())
