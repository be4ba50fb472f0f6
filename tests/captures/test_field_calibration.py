#!/usr/bin/env python3
"""test_field_calibration.py METER_SIM: the field-scale set (512 kB image,
SZX 1..6, ~5% bursty loss) lands within +-30% of the field measurement in
shared/meter-protocol.md, in the same order of rates, every transfer complete."""
import json
import os
import subprocess
import sys
import tempfile

FIELD_RATE = {6: 809, 5: 713, 4: 458, 3: 239, 2: 150, 1: 68}   # B/s, meter-protocol.md


def main():
    sim = sys.argv[1]
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "captures",
                          "make-field-set.sh")
    failures = 0
    rates = {}
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([script, sim, tmp], check=True, stdout=subprocess.DEVNULL)
        for szx in FIELD_RATE:
            with open(os.path.join(tmp, "field-szx%d.pcap.truth.json" % szx)) as f:
                t = json.load(f)
            (x,) = [x for x in t["transfers"] if not x["background"]]
            rates[szx] = x["effective_rate_Bps"]
            ok = x["complete"] and x["bytes"] == 512 * 1024 and \
                abs(rates[szx] / FIELD_RATE[szx] - 1) <= 0.30
            print("%s  SZX %d: %.0f B/s in %.0f s (field %d B/s, %+.0f%%), %d retransmissions"
                  % ("ok   " if ok else "FAIL ", szx, rates[szx], x["duration_s"], FIELD_RATE[szx],
                     100 * (rates[szx] / FIELD_RATE[szx] - 1), x["coap_retransmissions"]))
            failures += not ok
    order = sorted(rates, key=rates.get) == sorted(FIELD_RATE, key=FIELD_RATE.get)
    print("%s  rates in the field's order" % ("ok   " if order else "FAIL "))
    return 1 if failures or not order else 0


if __name__ == "__main__":
    sys.exit(main())
