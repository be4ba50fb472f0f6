#!/usr/bin/env python3
"""test_expert_counts.py SANDBOX PLUGIN_SO CAPTURE...: one retransmission story.
On each capture (tshark -2, as the GUI sees it), every repeat the plugin
flags on a frame (meter.ota.retransmission, .rerequest, .duplicate_response)
carries its expert info, and each expert info's count in `-z expert` (the
GUI's Expert Information) equals its column of `-z meter,ota,tsv` summed over
the transfers, and both equal the generator's truth (its on_air numbers
summed over the transfers): a duplicate response is a duplicate response,
not a retransmission. Stalls too. And every frame of a transfer that stock CoAP
marks Retransmitted is either one (meter.ota.retransmission) or says which
frame first carried the same transmission (meter.ota.same_transmission: a
hop copy, a MAC retry)."""
import os
import re
import subprocess
import sys

import tshark_view as tv

EXPERTS = {
    "retransmissions": "CoAP retransmission (same Message ID)",
    "rerequests": "Re-request: the same block with a new Message ID after a failed exchange",
    "duplicate_responses": "Duplicate response: the same response sent again (to a retransmitted request)",
    "stalls": "Transfer stalled for",
}


def main():
    sandbox, so = sys.argv[1:3]
    failures = 0
    for cap in sys.argv[3:]:
        truth = tv.load_truth(cap)
        cmd = [sandbox, so, "-n", "-r", cap, "-2", "-q", "-z", "expert", "-z", "meter,ota,tsv"]
        for pref in truth.get("wireshark_prefs", []):
            cmd += ["-o", pref]
        out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
        rows = tv.ota_tsv(out)[0]
        counts = {k: 0 for k in EXPERTS}
        for line in out.splitlines():
            m = re.match(r"^\s+(\d+)\s+\S+\s+Meter\s+(.*)$", line)
            if m:
                for k, text in EXPERTS.items():
                    if m.group(2).startswith(text):
                        counts[k] += int(m.group(1))
        fields = subprocess.run(cmd[:cmd.index("-q")] + cmd[cmd.index("-z") + 4:] +
                                ["-Y", "coap.retransmitted && meter.transfer", "-T", "fields", "-e", "frame.number",
                                 "-e", "meter.ota.retransmission", "-e", "meter.ota.same_transmission"],
                                capture_output=True, text=True, check=True).stdout
        marked = [line.split("\t") for line in fields.splitlines()]
        unexplained = [f[0] for f in marked if not tv.is_true(f[1].split(",")[0]) and not f[2]]
        ok = not unexplained
        print("%s  %s: %d frames of transfers stock CoAP marks Retransmitted, each a retransmission or the same "
              "transmission as an earlier frame%s" % ("ok   " if ok else "FAIL ", os.path.basename(cap), len(marked),
                                                      (": not " + ", ".join(unexplained[:10])) if unexplained else ""))
        failures += not ok
        for k in EXPERTS:
            want = sum(int(r[k]) for r in rows)
            true = sum(x["on_air"][k] for x in truth["transfers"])
            ok = counts[k] == want == true
            print("%s  %s: %d %s expert infos, the statistics count %d, the truth %d"
                  % ("ok   " if ok else "FAIL ", os.path.basename(cap), counts[k], k, want, true))
            failures += not ok
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
