#!/usr/bin/env python3
"""test_link_types.py METER_SIM: one scenario written as link types 195, 230,
283 and ZEP gives identical CoAP-level tshark output (frame by frame, with
timestamps); the gateway's view of the same run shows the same CoAP
exchanges that reached the gateway."""
import os
import subprocess
import sys
import tempfile

import tshark_view as tv

COAP_FIELDS = ["frame.number", "frame.time_epoch", "ipv6.src", "ipv6.dst",
               "coap.type", "coap.code", "coap.mid", "coap.token", "coap.opt.uri_path_recon",
               "coap.opt.uri_query", "coap.opt.block_number", "coap.opt.block_mflag",
               "coap.opt.block_size", "coap.payload_length", "coap.block_length"]


def main():
    sim = sys.argv[1]
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        for scenario in ("default", "secure", "multihop"):
            outputs = {}
            for link in ("195", "230", "283", "zep"):
                cap = os.path.join(tmp, "%s-%s.pcap" % (scenario, link))
                subprocess.run([sim, "--scenario", scenario, "--seed", "21", "--link", link,
                                "--quiet", "--output", cap], check=True)
                rows = tv.run_fields(cap, tv.load_truth(cap), fields=COAP_FIELDS,
                                     display_filter="coap")
                outputs[link] = rows
            base = outputs["195"]
            for link, rows in outputs.items():
                same = rows == base and len(rows) > 20
                print("%s  %s: link type %s gives the same %d CoAP rows as 195"
                      % ("ok   " if same else "FAIL ", scenario, link, len(rows)))
                failures += not same
            gw = os.path.join(tmp, "%s-gateway.pcap" % scenario)
            subprocess.run([sim, "--scenario", scenario, "--seed", "21", "--link", "gateway",
                            "--quiet", "--output", gw], check=True)
            gw_rows = tv.run_fields(gw, tv.load_truth(gw), fields=COAP_FIELDS, display_filter="coap")
            air = {(r["coap.type"], r["coap.code"], r["coap.mid"], r["coap.token"]) for r in base}
            seen = {(r["coap.type"], r["coap.code"], r["coap.mid"], r["coap.token"]) for r in gw_rows}
            ok = seen and seen <= air
            print("%s  %s: the gateway's %d distinct CoAP messages all appear on the air"
                  % ("ok   " if ok else "FAIL ", scenario, len(seen)))
            failures += not ok
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
