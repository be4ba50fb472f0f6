#!/usr/bin/env python3
"""test_malformed.py SANDBOX PLUGIN_SO: each malformed payload of
malformed_pcap.py gets its expert info in its own frame, the rest of the
message is still decoded, and the meter dissector neither throws (no
"Malformed Packet: Meter") nor hits a dissector bug. The stock CBOR
dissector also sees the config blobs and may report them malformed itself;
that is its business, not ours."""
import os
import subprocess
import sys
import tempfile

import malformed_pcap


def main():
    sandbox, so = sys.argv[1:3]
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        os.chmod(tmp, 0o755)
        cap = os.path.join(tmp, "malformed.pcap")
        cases = malformed_pcap.write(cap)
        os.chmod(cap, 0o644)
        wanted = sorted({c["expert"] for c in cases} | {c["still"] for c in cases})
        cmd = [sandbox, so, "-n", "-r", cap, "-T", "fields", "-E", "separator=\t",
               "-e", "frame.number", "-e", "_ws.malformed", "-e", "_ws.expert.message"]
        for w in wanted:
            cmd += ["-e", w]
        out = subprocess.run(cmd, check=True, capture_output=True, text=True)
        rows = {}
        for line in out.stdout.splitlines():
            vals = line.split("\t")
            rows[int(vals[0])] = dict(zip(["_ws.malformed", "_ws.expert.message"] + wanted, vals[1:]))
        bugs = [ln for ln in out.stderr.splitlines()
                if ("bug" in ln.lower() and "protocol Meter" in ln) or "assert" in ln.lower()]
        for c in cases:
            r = rows.get(c["frame"], {})
            ours_threw = "Meter" in r.get("_ws.malformed", "")
            ok = bool(r.get(c["expert"])) and bool(r.get(c["still"])) and not ours_threw
            print("%s  %-20s %s: %s, %s still decoded" % ("ok   " if ok else "FAIL ", c["name"], c["what"],
                                                         c["expert"], c["still"]))
            if not ok:
                print("      frame %d: %s" % (c["frame"], r))
            failures += not ok
        if bugs:
            print("FAIL  tshark reported: %s" % bugs[:3])
            failures += 1
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
