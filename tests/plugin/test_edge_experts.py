#!/usr/bin/env python3
"""test_edge_experts.py SANDBOX PLUGIN_SO COMMITTED_DIR: the gateway edge
cases of the committed captures raise their expert infos: SZX 7 (a 4.02
with a payload), SZX 0 answered with an empty block, and the error
responses; the truth file says which transfer asked for what."""
import json
import os
import subprocess
import sys

CASES = [("edge-szx7", ["meter.ota.szx7", "meter.ota.error_response"]),
         ("edge-szx0-empty", ["meter.ota.szx0"]),
         ("edge-szx0-bad-option", ["meter.ota.szx0", "meter.ota.error_response"])]


def main():
    sandbox, so, committed = sys.argv[1:4]
    failures = 0
    for name, experts in CASES:
        cap = os.path.join(committed, name + ".pcap")
        with open(cap + ".truth.json") as f:
            truth = json.load(f)
        prefs = []
        for p in truth.get("wireshark_prefs", []):
            prefs += ["-o", p]
        for e in experts:
            out = subprocess.run([sandbox, so, "-n", "-r", cap] + prefs + ["-2", "-Y", e, "-T", "fields",
                                                                           "-e", "frame.number"],
                                 capture_output=True, text=True, check=True).stdout.split()
            ok = len(out) > 0
            print("%s  %s: %s on %d frame(s)" % ("ok   " if ok else "FAIL ", name, e, len(out)))
            failures += not ok
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
