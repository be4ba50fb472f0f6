#!/usr/bin/env python3
"""test_real_verdicts.py MESCOPE_CLI DIR: the verdict (docs/recommendation.md,
"The verdict") on the real OpenThread captures (DIR: shared/captures-real/
openthread), each transfer's cause against what the captures' README says
was done, not against the analyser's own output:

  ot-01 (T01-T07)  n2 GETs from n1, one hop, no outage, no sleepy node:
                   nothing lost, "none";
  ot-03 (T11-T13)  the sleepy n3 (poll period 500 ms) GETs from n1 over three
                   hops, "traffic to n3 is indirect (Data Request polls)":
                   "poll_wait";
  ot-04 (T14-T15)  n1 GETs from a server on the sleepy n3: "poll_wait";
  ot-06 (T26-T29)  transfers during 1.5 s link outages (MAC retries, CoAP
                   retransmissions, a lost fragmented datagram): the time goes
                   to CoAP timeouts after exchanges lost on the radio,
                   "radio_loss" (the outages are 1.5 s: no silence of 10 s).

Left out: ot-02 (a two-hop mesh whose README says nothing went wrong, and
which lasts a tenth of a second: whether the mesh's forwarding or the
server's turn-around is the largest part is not stated anywhere but in the
analyser), ot-05 (plain CON exchanges), ot-07 (the client aborts after
block 1 on a parse error of its own: the record cannot tell an abort from a
capture that ended). Each verdict must also be a sentence that names its
numbers (a digit in it)."""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from analyser_run import Analyser  # noqa: E402

PREFS = ["-k", "00112233445566778899aabbccddeeff", "-O", "6lowpan.context0:fdde:ad00:beef::/64",
         "-O", "6lowpan.context1:2001:db8:1::/64", "-O", "meter.path.firmware:blk",
         "-O", 'uat:802154_addresses:"0xa400","0xface",8eb1a921e3fa71d2',
         "-O", 'uat:802154_addresses:"0x2400","0xface",de46fe846b0aa32b',
         "-O", 'uat:802154_addresses:"0x2c00","0xface",364c35d7fa3a4f60',
         "-O", 'uat:802154_addresses:"0x2c01","0xface",daba8078e3826a98']

# file: (transfers the README lists, the cause each must get)
EXPECTED = {
    "ot-01-block2-1hop.pcap": (7, "none"),
    "ot-03-block2-sed-3hop.pcap": (3, "poll_wait"),
    "ot-04-block2-server-on-sed.pcap": (2, "poll_wait"),
    "ot-06-lossy-retx.pcap": (4, "radio_loss"),
}


def main():
    binary, folder = sys.argv[1:3]
    a = Analyser(binary)
    failures = 0
    try:
        for name, (count, cause) in sorted(EXPECTED.items()):
            res = a.run(["--no-progress", "--format", "json"] + PREFS + [a.copy(os.path.join(folder, name))])
            if res.returncode != 0:
                print("FAIL  %s: exit %d: %s" % (name, res.returncode, res.stderr.strip()))
                failures += 1
                continue
            transfers = [t for t in json.loads(res.stdout)["captures"][0]["transfers"] if t["blocks"] > 1]
            if len(transfers) != count:
                print("FAIL  %s: %d block-wise transfers, the README lists %d" % (name, len(transfers), count))
                failures += 1
            for t in transfers:
                v = t.get("verdict") or {}
                ok = v.get("cause") == cause and any(ch.isdigit() for ch in v.get("sentence", ""))
                print("%-5s %s #%d: %s (want %s): %s" % ("ok" if ok else "FAIL", name, t["transfer"], v.get("cause"),
                                                        cause, v.get("sentence")))
                failures += not ok
    finally:
        a.close()
    print("real_verdicts: %s" % ("%d failed" % failures if failures else "all passed"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
