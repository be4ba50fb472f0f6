#!/usr/bin/env python3
"""test_real_captures.py SANDBOX PLUGIN_SO DIR: the plugin on captures from the
real OpenThread stack (shared/captures-real/openthread, its README): with
the firmware path set to the captures' /blk resource, every Block2 response
stock CoAP shows is tied to its request's path by the plugin, tokenless
follow-up blocks included, and the plugin never throws or hits a dissector
bug (the blocks are random bytes, so "bad magic" expert infos are expected).
The counts are those of the captures' ground truth (DIR/ground-truth.json,
made with stock tshark 4.0 by the people who captured them): every frame is
read, and the messages with a Block option and the Block2 2.05 responses are
as many as it says, so that a plugin that loses the frames, their decryption
or their CoAP (0 of 0) fails."""
import glob
import json
import os
import subprocess
import sys

PREFS = ['uat:ieee802154_keys:"00112233445566778899aabbccddeeff","1","Thread hash"',
         "6lowpan.context0:fdde:ad00:beef::/64", "6lowpan.context1:2001:db8:1::/64",
         'uat:802154_addresses:"0xa400","0xface",8eb1a921e3fa71d2',
         'uat:802154_addresses:"0x2400","0xface",de46fe846b0aa32b',
         'uat:802154_addresses:"0x2c00","0xface",364c35d7fa3a4f60',
         'uat:802154_addresses:"0x2c01","0xface",daba8078e3826a98',
         "meter.path.firmware:blk"]


def main():
    sandbox, so, folder = sys.argv[1:4]
    with open(os.path.join(folder, "ground-truth.json")) as f:
        truth = json.load(f)["files"]
    failures = 0
    caps = sorted(glob.glob(os.path.join(folder, "*.pcap")))
    names = sorted(os.path.basename(c) for c in caps)
    if names != sorted(truth):
        print("FAIL  the captures %s are not those of the ground truth %s" % (names, sorted(truth)))
        failures += 1
    for cap in caps:
        want = truth.get(os.path.basename(cap), {})
        cmd = [sandbox, so, "-n", "-r", cap, "-d", "udp.port==61631,coap"]
        for p in PREFS:
            cmd += ["-o", p]
        out = subprocess.run(cmd + ["-T", "fields", "-e", "coap.code", "-e", "coap.opt.block_number",
                                    "-e", "meter.resource", "-e", "_ws.malformed"],
                             capture_output=True, text=True)
        stock = ours = threw = frames = blockwise = 0
        for line in out.stdout.splitlines():
            frames += 1
            code, block, res, malformed = (line.split("\t") + [""] * 4)[:4]
            blockwise += bool(block)
            if code == "69" and block:
                stock += 1
                ours += res == "3"
            threw += "Meter" in malformed
        bugs = [ln for ln in out.stderr.splitlines() if "protocol Meter" in ln or "assert" in ln.lower()]
        ok = out.returncode == 0 and ours == stock and not threw and not bugs
        ok = ok and frames == want.get("frames") and stock == want.get("coap_block2_resp") and \
            blockwise == want.get("coap_block_option")
        print("%s  %s: %d of %d Block2 responses tied to /blk, %d frames, %d messages with a Block option "
              "(ground truth %s, %s, %s), %d exceptions, %d bugs"
              % ("ok   " if ok else "FAIL ", os.path.basename(cap), ours, stock, frames, blockwise,
                 want.get("coap_block2_resp"), want.get("frames"), want.get("coap_block_option"), threw, len(bugs)))
        failures += not ok
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
