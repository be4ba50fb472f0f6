#!/usr/bin/env python3
"""test_coap_ports.py SANDBOX PLUGIN_SO METER_SIM METERSCOPE [ETSI_DIR]: CoAP
wherever the user decodes it, with the plugin invisible in the stack.

- frame.protocols with the plugin is, frame by frame, what stock tshark
  (no plugin at all) shows: the plugin's CoAP hook adds no layer.
- The same simulation written with its CoAP on UDP 7000 (meter-sim
  --coap-port; on 802.15.4 the port is inline in the UDP NHC header) gives
  the same -z meter,ota,tsv records as on 5683, with Decode As
  (-d udp.port==7000,coap) and with CoAP's port preference
  (-o coap.udp.port:7000), and tshark warns of nothing; the analyser's report
  with -O coap.udp.port:7000 is the 5683 report. Without either setting the
  7000 capture holds no transfer (the port really changed).
- On 802.15.4 with a 4-bit NHC port (61631), Decode As finds the truth's
  transfers.
- With ETSI_DIR (real ETSI CoAP plugtest captures, Ethernet/IPv4), each
  rewritten from 5683 to 7000 gives its 5683 records."""
import glob
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile

from analyser_run import Analyser
from checks import Checks

HERE = os.path.dirname(os.path.abspath(__file__))
AS_USER = os.path.join(HERE, "..", "as-user")
CTX = ["-o", "6lowpan.context1:2001:db8:1::/64"]
check = Checks()


def tshark(sandbox, so, args):
    return subprocess.run([sandbox, so] + args, capture_output=True, text=True)


def stock_tshark(tmp, capture, args):
    """tshark with no plugin at all (an empty plugin folder), as nobody."""
    empty = os.path.join(tmp, "no-plugins")
    os.makedirs(empty, exist_ok=True)
    copy = os.path.join(tmp, "stock-" + os.path.basename(capture))
    shutil.copy(capture, copy)
    os.chmod(copy, 0o644)
    os.chmod(tmp, 0o777)
    return subprocess.run([AS_USER, "HOME=" + tmp, "WIRESHARK_PLUGIN_DIR=" + empty,
                           os.environ.get("TSHARK", "tshark"), "-r", copy] + args,
                          capture_output=True, text=True)


def records(out):
    """The T, P and C records; the # lines name their columns."""
    return [ln for ln in out.splitlines() if ln[:2] in ("T\t", "P\t", "C\t")]


def warnings(err):
    return [ln for ln in err.splitlines() if "WARNING" in ln or "matched" in ln]


def rewrite_udp_port(src, dst, old, new):
    """An Ethernet/IPv4 pcap with UDP port old rewritten to new (checksum
    cleared: optional over IPv4)."""
    d = bytearray(open(src, "rb").read())
    assert struct.unpack("<I", d[:4])[0] == 0xa1b2c3d4 and struct.unpack("<I", d[20:24])[0] == 1
    o, n = 24, 0
    while o + 16 <= len(d):
        incl = struct.unpack("<I", d[o + 8:o + 12])[0]
        p = o + 16
        if struct.unpack(">H", d[p + 12:p + 14])[0] == 0x0800 and d[p + 23] == 17:
            u = p + 14 + (d[p + 14] & 15) * 4
            sport, dport = struct.unpack(">HH", d[u:u + 4])
            struct.pack_into(">HH", d, u, new if sport == old else sport, new if dport == old else dport)
            struct.pack_into(">H", d, u + 6, 0)
            n += old in (sport, dport)
        o = p + incl
    open(dst, "wb").write(d)
    return n


def same_records(sandbox, so, base, moved, name, extra=()):
    ref = tshark(sandbox, so, ["-r", base] + list(extra) + ["-q", "-z", "meter,ota,tsv"])
    want = records(ref.stdout)
    transfers = sum(r.startswith("T\t") for r in want)
    check(transfers > 0, "%s on 5683: %d transfers" % (name, transfers))
    for how in (["-d", "udp.port==7000,coap"], ["-o", "coap.udp.port:7000"]):
        res = tshark(sandbox, so, ["-r", moved] + list(extra) + how + ["-q", "-z", "meter,ota,tsv"])
        check(res.returncode == 0 and records(res.stdout) == want,
              "%s on 7000 with %s: the same %d records as on 5683" % (name, " ".join(how), len(want)))
        check(not warnings(res.stderr), "%s with %s: no warning (%s)" % (name, " ".join(how),
                                                                         "; ".join(warnings(res.stderr))[:200]))
    res = tshark(sandbox, so, ["-r", moved] + list(extra) + ["-q", "-z", "meter,ota,tsv"])
    check(not any(r.startswith("T\t") for r in records(res.stdout)),
          "%s on 7000 without a setting: no transfer (the port changed)" % name)


def same_protocols(sandbox, so, tmp, capture, name, extra=()):
    args = list(extra) + ["-T", "fields", "-e", "frame.protocols"]
    ours = tshark(sandbox, so, ["-r", capture] + args).stdout.splitlines()
    stock = stock_tshark(tmp, capture, args).stdout.splitlines()
    coap = sum(":coap" in ln for ln in stock)
    differ = [i + 1 for i, (a, b) in enumerate(zip(ours, stock)) if a != b]
    check(coap > 0 and len(ours) == len(stock) and not differ,
          "%s: frame.protocols as stock tshark's on all %d frames (%d with CoAP; differ: %s)"
          % (name, len(stock), coap, differ[:5]))


def analyser_report(analyser, capture, extra):
    res = analyser.run(["-f", "json", "-q", "--no-progress", "-O", "6lowpan.context1:2001:db8:1::/64"]
                       + extra + [analyser.copy(capture, "capture.pcap")])
    return res.returncode, res.stdout


def main():
    sandbox, so, sim, cli = sys.argv[1:5]
    etsi = sys.argv[5] if len(sys.argv) > 5 else None
    tmp = tempfile.mkdtemp(prefix="meterscope-ports-")
    analyser = Analyser(cli)
    try:
        caps = {}
        for link in ("195", "gateway"):
            for port in (5683, 7000, 61631):
                path = os.path.join(tmp, "default-%s-%d.pcap" % (link, port))
                subprocess.run([sim, "--output", path, "--link", link, "--coap-port", str(port)],
                               check=True, stdout=subprocess.DEVNULL)
                caps[link, port] = path

        for link in ("195", "gateway"):
            same_protocols(sandbox, so, tmp, caps[link, 5683], "default --link " + link, CTX)
            same_records(sandbox, so, caps[link, 5683], caps[link, 7000], "default --link " + link, CTX)
            base = analyser_report(analyser, caps[link, 5683], [])
            moved = analyser_report(analyser, caps[link, 7000], ["-O", "coap.udp.port:7000"])
            check(base[0] == 0 and moved == base,
                  "default --link %s: the analyser's report on 7000 (-O coap.udp.port:7000) is the one on 5683 "
                  "(exit %d and %d)" % (link, base[0], moved[0]))

        # A 4-bit compressed NHC port: the plugin follows it too.
        truth = json.load(open(caps["195", 61631] + ".truth.json"))
        res = tshark(sandbox, so, ["-r", caps["195", 61631]] + CTX +
                     ["-d", "udp.port==61631,coap", "-q", "-z", "meter,ota,tsv"])
        found = sum(r.startswith("T\t") for r in records(res.stdout))
        check(found == len(truth["transfers"]) and not warnings(res.stderr),
              "default on 61631 (4-bit NHC ports): %d transfers, the truth has %d" % (found, len(truth["transfers"])))

        if etsi:
            for cap in sorted(glob.glob(os.path.join(etsi, "*.pcap"))):
                name = os.path.basename(cap)
                same_protocols(sandbox, so, tmp, cap, name)
                moved = os.path.join(tmp, "moved-" + name)
                if rewrite_udp_port(cap, moved, 5683, 7000):
                    same_records(sandbox, so, cap, moved, name)
    finally:
        analyser.close()
        shutil.rmtree(tmp, ignore_errors=True)
    return check.summary("test_coap_ports")


if __name__ == "__main__":
    sys.exit(main())
