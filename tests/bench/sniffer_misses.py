#!/usr/bin/env python3
"""sniffer_misses.py BUILD_DIR [SEED [SCENARIO]]: how the plugin's counts hold
up when the sniffer misses frames (issue: counts that stay right when the
capture misses frames). Generates the same simulation with a perfect
sniffer and with 1%, 5% and 20% independent misses (meter-sim
--sniffer-miss), and prints, per miss rate, the frames the truth says were
not captured (data frames and ACKs of transfers) against the plugin's
inferred frames_missed_by_sniffer, and every per-transfer count that
differs from the perfect capture's, with the transfer's uncertain-loss
columns. A report, not a test: run it by hand."""
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
import tshark_view as tv  # noqa: E402
import sniffer_bounds  # noqa: E402

COLUMNS = ("requests", "retransmissions", "rerequests", "mac_retries", "datagram_copies", "frames_unacked",
           "request_copies_lost", "response_copies_lost", "fragments_lost", "blocks", "bytes")


def main():
    build = sys.argv[1]
    seed = sys.argv[2] if len(sys.argv) > 2 else "3"
    scenario = sys.argv[3] if len(sys.argv) > 3 else "default"
    sim = os.path.join(build, "captures", "meter-sim")
    so = os.path.join(build, "plugin", "meterscope.so")
    sandbox = os.path.join(HERE, "..", "tshark-sandbox")
    base = None
    with tempfile.TemporaryDirectory() as tmp:
        for p in ("0", "0.01", "0.05", "0.2"):
            cap = os.path.join(tmp, "miss-%s.pcap" % p)
            subprocess.run([sim, "--scenario", scenario, "--seed", seed, "--sniffer-miss", p, "--quiet",
                            "--output", cap], check=True)
            with open(cap + ".truth.json") as f:
                truth = json.load(f)
            prefs = [a for pref in truth.get("wireshark_prefs", []) for a in ("-o", pref)]
            out = subprocess.run([sandbox, so, "-n", "-r", cap, "-q", "-z", "meter,ota,tsv"] + prefs, check=True,
                                 capture_output=True, text=True).stdout
            rows = tv.ota_tsv(out)[0]
            missed = sum(x["not_captured"]["frames"] for x in truth["transfers"])
            inferred = sum(int(r.get("frames_missed_by_sniffer") or 0) for r in rows)
            estimate = sum(int(r.get("frames_missed_estimate") or 0) for r in rows)
            high = sum(int(r.get("frames_missed_high") or 0) for r in rows)
            print("miss %-5s truth: %4d frames of transfers not captured (fragments, ACKs, the meter's polls); "
                  "shown %4d, estimate %4d (%+.0f%%), high end %4d"
                  % (p, missed, inferred, estimate, 100.0 * (estimate - missed) / missed if missed else 0, high))
            if base is None:
                base = rows
                continue
            for r, b in zip(rows, base):
                diff = ["%s %s (perfect %s)" % (c, r.get(c), b.get(c)) for c in COLUMNS if str(r.get(c)) != str(b.get(c))]
                if diff:
                    print("    transfer %s: %s; uncertain: copies %s, frames %s; missed at most %s"
                          % (r["transfer"], ", ".join(diff), r.get("copies_lost_uncertain"),
                             r.get("frames_unacked_uncertain"), r.get("frames_missed_high")))
                for v in sniffer_bounds.violations(r, b):
                    print("      OUT OF RANGE: " + v)
    return 0


if __name__ == "__main__":
    sys.exit(main())
