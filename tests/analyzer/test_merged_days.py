#!/usr/bin/env python3
"""test_merged_days.py METERSCOPE METER_SIM: a transfer ends. The same meter
downloads the same image on three days, a day apart (meter-sim --start, a
seed a day), the captures written one after the other into one file
(mergecap -a), as a field engineer who keeps a sniffer running for days
gets it. The analyser reports each day's transfers apart, each with every
on-air number of its day's truth; none spans two days. (Message IDs used
again within one capture: the `repeat` scenario, in plugin.ota_generated.)"""
import json
import os
import subprocess
import sys

from analyser_run import Analyser, prefs_args
from ota_compare import as_tsv_row, differences
import tshark_view as tv

START = 1772532000      # 2026-03-03 10:00 UTC
DAYS = 3


def main():
    binary, sim = sys.argv[1:3]
    a = Analyser(binary)
    failures = 0
    try:
        days, truths = [], []
        for d in range(DAYS):
            cap = os.path.join(a.tmp, "day%d.pcap" % d)
            subprocess.run([sim, "--scenario", "default", "--seed", str(5 + d), "--start", str(START + 86400 * d),
                            "--quiet", "--output", cap], check=True)
            days.append(cap)
            truths.append(tv.load_truth(cap))
        merged = os.path.join(a.tmp, "days.pcap")
        # mergecap is stock Wireshark's, not ours: without the sanitizer
        # runtimes the sanitizer build's tests preload (it hangs under them).
        env = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}
        subprocess.run(["mergecap", "-a", "-F", "pcap", "-w", merged] + days, check=True, env=env, timeout=120)
        os.chmod(merged, 0o644)
        res = a.run(prefs_args(truths[0]) + ["--no-progress", "--format", "json", "days.pcap"])
        if res.returncode != 0:
            print("FAIL  meterscope exited %d: %s" % (res.returncode, res.stderr.strip()))
            return 1
        transfers = json.loads(res.stdout)["captures"][0]["transfers"]
        want = [x for t in truths for x in t["transfers"] if x["on_air"]["requests"] > 0]
        ok = len(transfers) == len(want)
        print("%s  %d transfers on %d days, the truth has %d" % ("ok   " if ok else "FAIL ", len(transfers), DAYS,
                                                               len(want)))
        failures += not ok
        for x in want:
            match = [t for t in transfers if t["meter"] == x["meter"]["ipv6"] and t["path"] == x["uri_path"]
                     and t["first_request_us"] == x["on_air"]["first_request_us"]]
            diff = differences(as_tsv_row(match[0]), x) if len(match) == 1 else ["found %d times" % len(match)]
            day = (x["on_air"]["first_request_us"] // 1000000 - START) // 86400
            print("%s  day %d, transfer %d (%s): %s" % ("ok   " if not diff else "FAIL ", day, x["id"], x["uri_path"],
                                                      "every on-air number equal" if not diff else "; ".join(diff)))
            failures += bool(diff)
        longest = max((t["duration_s"] for t in transfers), default=0)
        ok = longest < 86400 / 2
        print("%s  no transfer spans two days (longest %.1f s)" % ("ok   " if ok else "FAIL ", longest))
        failures += not ok
    finally:
        a.close()
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
