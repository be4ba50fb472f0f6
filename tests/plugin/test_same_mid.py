#!/usr/bin/env python3
"""test_same_mid.py SANDBOX PLUGIN_SO: many messages with one Message ID. A
download of N blocks whose every GET carries MID 7 (a broken client;
tests/bench/same_mid_capture.py writes it, so it knows the answer): over
802.15.4 and at the gateway, the plugin finds one complete transfer of N
blocks and N requests, none of them a retransmission or a re-request, and
N responses none of them a duplicate."""
import os
import subprocess
import sys
import tempfile

from checks import Checks
import tshark_view as tv

HERE = os.path.dirname(os.path.abspath(__file__))

N = 600


def main():
    sandbox, so = sys.argv[1:3]
    check = Checks()
    with tempfile.TemporaryDirectory() as tmp:
        for link in ("wpan", "gateway"):
            cap = os.path.join(tmp, "same-mid-%s.pcap" % link)
            subprocess.run([sys.executable, os.path.join(HERE, "..", "bench", "same_mid_capture.py"), str(N), cap,
                            link], check=True)
            out = subprocess.run([sandbox, so, "-n", "-r", cap, "-q", "-z", "meter,ota,tsv"], check=True,
                                 capture_output=True, text=True).stdout
            rows = tv.ota_tsv(out)[0]
            got = [(r["blocks"], r["bytes"], r["complete"], r["requests"], r["retransmissions"], r["rerequests"],
                    r["duplicate_responses"]) for r in rows]
            want = [(N, 16 * N, True, N, 0, 0, 0)]
            check(got == want, "%s: one complete transfer of %d blocks, %d requests, no repeats: %s"
                  % (link, N, N, got))
    return check.summary("same MID")


if __name__ == "__main__":
    sys.exit(main())
