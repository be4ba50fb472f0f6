#!/usr/bin/env python3
"""test_verdict_expert.py SANDBOX PLUGIN_SO COMMITTED_DIR: the verdict in
Wireshark (docs/recommendation.md, "The verdict"). On six of the committed
captures (CAPTURES), with -2: each transfer -z meter,ota,tsv reports gets the expert
info meter.ota.verdict on exactly one frame, its first request (the
transfer's first frame, or the frame a fragmented first request was
reassembled in: a request, round 1, block 0), with meter.ota.verdict.cause
one of the documented causes and meter.ota.verdict.evidence a sentence with
numbers; a one-pass run (no -2) shows no verdict, which needs the whole
capture."""
import glob
import os
import subprocess
import sys

from checks import Checks
from tshark_view import load_truth, ota_tsv

# Every vantage, link and kind of transfer among the committed captures:
# a radio capture, the gateway's, two meters over three hops with an outage
# and a renegotiation, Thread security, a refused SZX 0, Block1 uploads.
CAPTURES = {"default.pcap", "default-gateway.pcap", "two-meters.pcap", "secure.pcap", "edge-szx0-bad-option.pcap",
            "default-tap.pcap"}
CAUSES = {"none", "radio_loss", "poll_wait", "spurious_retransmissions", "turnaround", "backhaul", "stalls",
          "protocol_error", "capture_imperfect"}


def is_request(code):
    """coap.code as -T fields prints it (a number): a method is 1..31."""
    return any(c.isdigit() and 0 < int(c) < 32 for c in code.split(","))


def tshark(sandbox, so, cap, truth, args):
    prefs = []
    for p in truth.get("wireshark_prefs", []):
        prefs += ["-o", p]
    return subprocess.run([sandbox, so, "-n", "-r", cap] + prefs + args, capture_output=True, text=True)


def main():
    sandbox, so, folder = sys.argv[1:4]
    check = Checks()
    for cap in sorted(glob.glob(os.path.join(folder, "*.pcap"))):
        if os.path.basename(cap) not in CAPTURES:
            continue
        name = os.path.basename(cap)
        truth = load_truth(cap)
        fields = ["frame.number", "meter.transfer", "meter.ota.verdict.cause", "meter.ota.verdict.evidence",
                  "meter.ota.round", "coap.code"]
        # One run: the frames with a verdict, then the tap's records after them.
        res = tshark(sandbox, so, cap, truth, ["-2", "-Y", "meter.ota.verdict", "-T", "fields", "-E", "separator=\t"]
                     + [x for f in fields for x in ("-e", f)] + ["-z", "meter,ota,tsv"])
        head, _, records = res.stdout.partition("# meterscope-ota")
        transfers = ota_tsv("# meterscope-ota" + records)[0] if res.returncode == 0 and records else []
        check(len(transfers) > 0, "%s: the transfers of -z meter,ota,tsv" % name)
        rows = [line.split("\t") for line in head.splitlines() if line]
        by_transfer = {}
        for r in rows:
            for t in r[1].split(","):
                by_transfer.setdefault(t, []).append(r)
        for t in transfers:
            got = by_transfer.get(str(t["transfer"]), [])
            ok = len(got) == 1
            if ok:
                frame, _, cause, evidence, rnd, code = got[0][:6]
                ok = (cause.split(",")[0] in CAUSES and any(c.isdigit() for c in evidence)
                      and (int(frame) == int(t["first_frame"]) or ("1" in rnd.split(",") and is_request(code))))
            check(ok, "%s transfer %s: one verdict, on its first request %s" % (name, t["transfer"], got[:2]))
        if name == "default.pcap":
            one = tshark(sandbox, so, cap, truth, ["-Y", "meter.ota.verdict", "-T", "fields", "-e", "frame.number"])
            check(one.returncode == 0 and not one.stdout.strip(), "%s: no verdict in one pass" % name)
    return check.summary("verdict_expert")


if __name__ == "__main__":
    sys.exit(main())
