#!/usr/bin/env python3
"""test_ota_vs_truth.py SANDBOX PLUGIN_SO CAPTURE: every block-wise transfer the
generator's truth says a sniffer could see is found once by `tshark -z
meter,ota,tsv`, none is invented, and every number of the truth's `on_air`
record (docs/ota-sessions.md) is equal: counts exactly, times to the
microsecond (the capture's resolution), rates to 1e-6 relative."""
import subprocess
import sys

from ota_compare import HOST_LATE_US, differences
import tshark_view as tv


def plugin_rows(sandbox, so, capture, truth):
    cmd = [sandbox, so, "-n", "-r", capture]
    for pref in truth.get("wireshark_prefs", []):
        cmd += ["-o", pref]
    out = subprocess.run(cmd + ["-q", "-z", "meter,ota,tsv"], check=True, capture_output=True,
                         text=True).stdout
    return tv.ota_tsv(out)[0]


def matches(r, x, stamp):
    t = x["on_air"]["first_request_us"]
    if r["meter"] != x["meter"]["ipv6"] or r["path"] != x["uri_path"]:
        return False
    if stamp == "host":
        return HOST_LATE_US[0] <= int(r["first_request_us"]) - t <= HOST_LATE_US[1]
    return int(r["first_request_us"]) == t


def main():
    sandbox, so, capture = sys.argv[1:4]
    truth = tv.load_truth(capture)
    rows = plugin_rows(sandbox, so, capture, truth)
    stamp = truth.get("timestamp", "end")
    visible = [x for x in truth["transfers"] if x["on_air"]["requests"] > 0]
    failures = 0
    unmatched = list(rows)
    for x in visible:
        oa = x["on_air"]
        match = [r for r in unmatched if matches(r, x, stamp)]
        if len(match) != 1:
            print("FAIL  transfer %d (%s %s): found %d times" % (x["id"], x["meter"]["name"], x["uri_path"],
                                                              len(match)))
            failures += 1
            continue
        unmatched.remove(match[0])
        diff = differences(match[0], x, stamp)
        print("%s  transfer %d (%s %s, %s): %s" % ("ok   " if not diff else "FAIL ", x["id"], x["meter"]["name"],
                                                   x["uri_path"], "complete" if oa["complete"] else "incomplete",
                                                   "every on_air number equal" if not diff else "; ".join(diff)))
        failures += bool(diff)
    for r in unmatched:
        print("FAIL  transfer %s (%s %s) invented: not in the truth" % (r["transfer"], r["meter"], r["path"]))
        failures += 1
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
