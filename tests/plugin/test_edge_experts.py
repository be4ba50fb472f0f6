#!/usr/bin/env python3
"""test_edge_experts.py SANDBOX PLUGIN_SO COMMITTED_DIR: the gateway edge
cases of the committed captures raise their expert infos on the frames the
generator's truth says, per transfer: SZX 7 (a 4.02 with a payload) on each
request of a transfer that asked for SZX 7; SZX 0 answered with an error or
an empty block on each such answer the meter got (the truth's error_responses
of a transfer that asked for SZX 0: 4.02 Bad Option, or a block of the wrong
length); an error response on each 4.xx or 5.xx response on the air (the
truth's on_air.error_responses). Nothing else carries them."""
import collections
import os
import subprocess
import sys

import tshark_view as tv


def by_transfer(truth, count):
    """{the plugin's transfer number: count(x)} for the transfers the truth
    says a sniffer sees, numbered in the order of their first request."""
    visible = sorted((x for x in truth["transfers"] if x["on_air"]["requests"] > 0),
                     key=lambda x: x["on_air"]["first_request_us"])
    return {n: count(x) for n, x in enumerate(visible, 1) if count(x)}


EXPECTED = {
    "meter.ota.szx7": lambda x: x["on_air"]["requests"] if x["szx_requested"] == 7 else 0,
    "meter.ota.szx0": lambda x: x["error_responses"] if x["szx_requested"] == 0 else 0,
    "meter.ota.error_response": lambda x: x["on_air"]["error_responses"],
}
# Each capture shows each of its experts at least once.
CASES = [("edge-szx7", ["meter.ota.szx7", "meter.ota.error_response"]),
         ("edge-szx0-empty", ["meter.ota.szx0"]),
         ("edge-szx0-bad-option", ["meter.ota.szx0", "meter.ota.error_response"])]


def main():
    sandbox, so, committed = sys.argv[1:4]
    failures = 0
    for name, experts in CASES:
        cap = os.path.join(committed, name + ".pcap")
        truth = tv.load_truth(cap)
        prefs = []
        for p in truth.get("wireshark_prefs", []):
            prefs += ["-o", p]
        # One run: an FT_NONE field prints "1" in -T fields where it is present.
        fields = [a for e in EXPECTED for a in ("-e", e)]
        out = subprocess.run([sandbox, so, "-n", "-r", cap] + prefs +
                             ["-2", "-Y", " || ".join(EXPECTED), "-T", "fields", "-e", "meter.transfer"] + fields,
                             capture_output=True, text=True, check=True).stdout
        rows = [line.split("\t") for line in out.splitlines()]
        for i, (e, count) in enumerate(EXPECTED.items(), 1):
            got = collections.Counter(int(r[0].split(",")[0]) for r in rows if r[i])
            want = by_transfer(truth, count)
            ok = dict(got) == want and (e not in experts or len(want) > 0)
            print("%s  %s: %s on %d frame(s) by transfer %s, the truth's %s" % ("ok   " if ok else "FAIL ", name, e,
                                                                               sum(got.values()), dict(got), want))
            failures += not ok
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
