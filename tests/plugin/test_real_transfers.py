#!/usr/bin/env python3
"""test_real_transfers.py SANDBOX PLUGIN_SO DIR: on the real OpenThread captures,
`tshark -z meter,ota,tsv` finds every block-wise transfer of ground-truth.json
exactly once, with its client, block size, block count, byte count and
outcome, and invents none (the plain CON exchanges T16-T22 are not transfers).
The whole run and each per-phase slice are checked."""
import json
import os
import subprocess
import sys

import tshark_view as tv


def node_addresses(gt, node):
    info = gt["nodes"]["info"][str(node)]
    return set(info["ipaddrs"]) | {info["mleid"]}


def tsv_rows(sandbox, so, cap, opts):
    out = subprocess.run([sandbox, so, "-n", "-r", cap] + opts + ["-q", "-z", "meter,ota,tsv"],
                         check=True, capture_output=True, text=True).stdout
    return tv.ota_tsv(out)[0]


def main():
    sandbox, so, folder = sys.argv[1:4]
    with open(os.path.join(folder, "ground-truth.json")) as f:
        gt = json.load(f)
    block_wise = [t for t in gt["transfers"] if t["block_size"]]
    failures = 0
    for name in sorted(gt["files"]):
        phase = name[6:-5] if name.startswith("ot-0") else None
        want = [t for t in block_wise if phase is None or t["phase"] == phase]
        rows = tsv_rows(sandbox, so, os.path.join(folder, name), gt["tshark_opts"])
        unmatched = list(rows)
        bad = []
        for t in want:
            client = node_addresses(gt, t["client"])
            match = [r for r in unmatched
                     if r["meter"] in client and r["path"] == "/blk"
                     and int(r["block_size"]) == t["block_size"]
                     and int(r["blocks"]) == t["capture_blocks"]
                     and int(r["bytes"]) == t["payload_len"]
                     and r["complete"] == (t["outcome"] == "complete")
                     and r["kind"] == ("block1" if t["kind"].startswith("Block1") else "block2")
                     # The CLI's command and result times bracket the transfer.
                     and t["t_start"] - 0.5 <= int(r["first_request_us"]) / 1e6 <= t["t_end"] + 0.5]
            if len(match) != 1:
                bad.append(t["id"])
                continue
            unmatched.remove(match[0])
        ok = not bad and not unmatched
        print("%s  %s: %d of %d transfers found once with the right size, blocks, bytes and outcome; "
              "%d invented%s" % ("ok   " if ok else "FAIL ", name, len(want) - len(bad), len(want),
                                 len(unmatched), (" (missing: %s)" % ", ".join(bad)) if bad else ""))
        failures += not ok
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
