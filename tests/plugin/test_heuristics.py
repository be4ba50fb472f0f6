#!/usr/bin/env python3
"""test_heuristics.py SANDBOX PLUGIN_SO OPENTHREAD_DIR: from 4.4 on, stock
Wireshark's RF4CE heuristic takes some decrypted Thread frames before
6LoWPAN sees them (ot-01 frame 4, a block-0 GET, decodes as wpan:rf4ce_nwk).
With the plugin loaded it starts off, so plain tshark (and the GUI) decode
that frame as CoAP, and a user who turns it back on (--enable-heuristic, or
the Enabled Protocols dialog) gets stock behaviour again. Version-specific:
4.0 has no such heuristic, and the test is skipped there (exit 77)."""
import json
import os
import subprocess
import sys

SKIP = 77


def tshark(sandbox, so, args):
    return subprocess.run([sandbox, so] + args, capture_output=True, text=True, check=True).stdout


def main():
    sandbox, so, folder = sys.argv[1:4]
    rows = [line.split("\t") for line in tshark(sandbox, so, ["-G", "heuristic-decodes"]).splitlines()]
    # 4.4 and 4.6: table, protocol, enabled, default, heuristic short name,
    # description (4.0 prints three columns and has no RF4CE heuristic).
    rf4ce = [r for r in rows if len(r) >= 6 and r[4] == "rf4ce_nwk"]
    if not rf4ce:
        print("skip  this Wireshark has no rf4ce_nwk heuristic (4.0): nothing takes Thread frames")
        return SKIP
    with open(os.path.join(folder, "ground-truth.json")) as f:
        opts = json.load(f)["tshark_opts"]
    cap = os.path.join(folder, "ot-01-block2-1hop.pcap")
    fields = ["-T", "fields", "-e", "frame.protocols", "-Y", "frame.number == 4"]
    failures = 0

    def check(ok, what):
        nonlocal failures
        print(("ok    " if ok else "FAIL  ") + what)
        failures += not ok

    check(rf4ce[0][2] in ("F", "FALSE", "false"),
          "with the plugin loaded, -G heuristic-decodes lists rf4ce_nwk as off: %s" % "\t".join(rf4ce[0]))
    ours = tshark(sandbox, so, ["-n", "-r", cap] + opts + fields).strip()
    # (What follows udp:coap is the plugin's own business: this test is about
    # who takes the 802.15.4 payload.)
    check("wpan:6lowpan:ipv6:udp:coap" in ours and "rf4ce" not in ours, "ot-01 frame 4 decodes as CoAP: %s" % ours)
    stock = tshark(sandbox, so, ["-n", "-r", cap] + opts + ["--enable-heuristic", "rf4ce_nwk"] + fields).strip()
    check("rf4ce" in stock, "turned back on by the user, the heuristic takes the frame as stock does: %s" % stock)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
