#!/usr/bin/env python3
"""test_real_captures.py SANDBOX PLUGIN_SO DIR: the plugin on captures from the
real OpenThread stack (shared/captures-real/openthread, its README): with
the firmware path set to the captures' /blk resource, every Block2 response
stock CoAP shows is tied to its request's path by the plugin, tokenless
follow-up blocks included, and the plugin never throws or hits a dissector
bug (the blocks are random bytes, so "bad magic" expert infos are expected)."""
import glob
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
    failures = 0
    for cap in sorted(glob.glob(os.path.join(folder, "*.pcap"))):
        cmd = [sandbox, so, "-n", "-r", cap, "-d", "udp.port==61631,coap"]
        for p in PREFS:
            cmd += ["-o", p]
        out = subprocess.run(cmd + ["-T", "fields", "-e", "coap.code", "-e", "coap.opt.block_number",
                                    "-e", "meter.resource", "-e", "_ws.malformed"],
                             capture_output=True, text=True)
        stock = ours = threw = 0
        for line in out.stdout.splitlines():
            code, block, res, malformed = (line.split("\t") + [""] * 4)[:4]
            if code == "69" and block:
                stock += 1
                ours += res == "3"
            threw += "Meter" in malformed
        bugs = [ln for ln in out.stderr.splitlines() if "protocol Meter" in ln or "assert" in ln.lower()]
        ok = out.returncode == 0 and ours == stock and not threw and not bugs
        print("%s  %s: %d of %d Block2 responses tied to /blk, %d exceptions, %d bugs"
              % ("ok   " if ok else "FAIL ", os.path.basename(cap), ours, stock, threw, len(bugs)))
        failures += not ok
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
