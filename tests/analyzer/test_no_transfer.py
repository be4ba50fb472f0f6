#!/usr/bin/env python3
"""test_no_transfer.py METERSCOPE COMMITTED_DIR: a capture with no
block-wise transfer is a finding (exit 0, "no block-wise transfer found"),
also when its secured frames were all decrypted; only frames that stayed
encrypted make it an input error (exit 2), with a hint that names the
security suite they used.

The inputs come from the committed secure.pcap (Thread MAC security:
ENC-MIC-32, key id mode 1, docs/meter-sim.md; its truth gives the key and
the transfers' start): its frames before the first transfer's first request
(the config exchange, secured, not block-wise), and the same frames with
the key identifier mode rewritten to 0 (implicit key: Contiki's LLSEC, say,
not Thread's), FCS recomputed."""
import json
import os
import struct
import sys

from analyser_run import Analyser
from checks import Checks
from ieee802154 import fcs

check = Checks()
CTX = ["-O", "6lowpan.context1:2001:db8:1::/64", "--no-progress"]


def read_pcap(path):
    d = open(path, "rb").read()
    assert struct.unpack("<I", d[:4])[0] == 0xa1b2c3d4
    o, recs = 24, []
    while o + 16 <= len(d):
        sec, usec, incl, orig = struct.unpack("<IIII", d[o:o + 16])
        recs.append((sec * 1000000 + usec, bytearray(d[o + 16:o + 16 + incl])))
        o += 16 + incl
    return d[:24], recs


def write_pcap(path, header, recs):
    with open(path, "wb") as f:
        f.write(header)
        for ts, data in recs:
            f.write(struct.pack("<IIII", ts // 1000000, ts % 1000000, len(data), len(data)) + bytes(data))


def security_control_at(psdu):
    """Offset of a secured 2006 frame's security control byte, else None."""
    fcf = struct.unpack("<H", psdu[:2])[0]
    if not fcf & 0x0008 or (fcf >> 12) & 3 > 1:
        return None
    addr = {0: 0, 2: 2, 3: 8}
    dst, src = (fcf >> 10) & 3, (fcf >> 14) & 3
    pos = 3 + (2 if dst else 0) + addr.get(dst, 0)
    pos += (2 if src and not fcf & 0x0040 else 0) + addr.get(src, 0)
    return pos


def with_key_id_mode(recs, mode):
    out, n = [], 0
    for ts, data in recs:
        data = bytearray(data)
        sc = security_control_at(data)
        if sc is not None:
            data[sc] = (data[sc] & ~0x18) | (mode << 3)
            data[-2:] = fcs(data[:-2])
            n += 1
        out.append((ts, data))
    return out, n


def main():
    cli, committed = sys.argv[1:3]
    secure = os.path.join(committed, "secure.pcap")
    truth = json.load(open(secure + ".truth.json"))
    key = truth["network_key"]
    start = min(t["first_request_us"] for t in truth["transfers"])
    analyser = Analyser(cli)
    try:
        header, recs = read_pcap(secure)
        before = [(ts, d) for ts, d in recs if ts < start]
        cfg = os.path.join(analyser.tmp, "secured-no-transfer.pcap")
        write_pcap(cfg, header, before)
        mode0, n_secured = with_key_id_mode(before, 0)
        other = os.path.join(analyser.tmp, "other-suite-no-transfer.pcap")
        write_pcap(other, header, mode0)
        check(n_secured > 0 and len(before) < len(recs),
              "input: %d of %d frames before the first transfer, %d of them secured" % (len(before), len(recs), n_secured))
        for f in (cfg, other):
            os.chmod(f, 0o644)

        res = analyser.run(CTX + ["--key", key, cfg])
        check(res.returncode == 0 and "no block-wise transfer found" in res.stderr and "--key" not in res.stderr,
              "secured frames all decrypted, no transfer: exit 0 (got %d), 'no block-wise transfer found' (%s)"
              % (res.returncode, res.stderr.strip()[:300]))

        res = analyser.run(CTX + [cfg])
        check(res.returncode == 2 and "not decrypted (802.15.4 security ENC-MIC-32, key id mode 1)" in res.stderr
              and "give the Thread network key with --key" in res.stderr,
              "no key: exit 2 (got %d), names ENC-MIC-32 and key id mode 1, asks for --key (%s)"
              % (res.returncode, res.stderr.strip()[:300]))

        res = analyser.run(CTX + ["--key", key, other])
        check(res.returncode == 2 and "key id mode 0)" in res.stderr and "not Thread's MAC security" in res.stderr
              and "give the Thread network key" not in res.stderr,
              "key id mode 0 (not Thread's): exit 2 (got %d), names the mode, says --key cannot help (%s)"
              % (res.returncode, res.stderr.strip()[:300]))

        res = analyser.run(CTX + ["-q", "--key", key, cfg])
        check(res.returncode == 0 and not res.stderr, "-q: exit 0 (got %d), nothing on stderr (%s)"
              % (res.returncode, res.stderr.strip()[:200]))

        res = analyser.run(CTX + ["--key", key, analyser.copy(secure)])
        check(res.returncode == 0 and "no block-wise transfer" not in res.stderr,
              "the whole capture with its key: exit 0 (got %d), its transfers found" % res.returncode)
    finally:
        analyser.close()
    return check.summary("test_no_transfer")


if __name__ == "__main__":
    sys.exit(main())
