#!/usr/bin/env python3
"""test_link_edges.py SANDBOX PLUGIN_SO METER_SIM CASE: link-level accounting
on captures that are not as clean as the generator's, made from the
generator's own captures so that its truth still holds (each case says how):

  foreign   Zigbee-like data frames (ACKed, some sent twice as MAC retries)
            and plain MAC command frames of another network, in the silences
            of a capture; one command comes back 10 s later with the same
            sequence number and another command. None of them gets Meter's
            link subtree or a MAC retry, on either pass, and the transfers
            are the truth's.
  backward  start stamps (as Cooja's) whose clock steps back by a few ms
            (less than ota_clock holds) just before a MAC retry, so that the
            retry is stamped before its first transmission: it is a MAC
            retry, not a sniffer duplicate, its ACK is its own, and every
            count is the truth's.
  merged    every record written twice at the same stamp (two interfaces of
            one sniffer merged): at the gateway's Ethernet and over 802.15.4
            with host stamps (where no sniffer duplicate is read off the
            gaps), every count is the truth's: a frame seen twice is no
            retransmission and no MAC retry."""
import os
import struct
import subprocess
import sys
import tempfile

from checks import Checks
from ieee802154 import fcs
import ota_compare
import tshark_view as tv
from restamp import read_pcap

RECORD_HEADER = 16


def write_pcap(path, linktype, recs):
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, linktype))
        for us, data, orig in recs:
            f.write(struct.pack("<IIII", us // 1000000, us % 1000000, len(data), orig) + data)


def simulate(sim, tmp, name, args):
    cap = os.path.join(tmp, name + ".pcap")
    subprocess.run([sim, "--scenario", "default", "--seed", "1", "--output", cap] + args, check=True,
                   capture_output=True)
    return cap, tv.load_truth(cap)


def tshark(sandbox, so, cap, truth, args):
    cmd = [sandbox, so, "-n", "-r", cap]
    for pref in truth.get("wireshark_prefs", []):
        cmd += ["-o", pref]
    return subprocess.run(cmd + args, check=True, capture_output=True, text=True).stdout


def transfers_match(check, sandbox, so, cap, truth, what, counts_only=False, stamp="end"):
    rows = tv.ota_tsv(tshark(sandbox, so, cap, truth, ["-q", "-z", "meter,ota,tsv"]))[0]
    want = [x for x in truth["transfers"] if not x.get("background")]
    check(len(rows) == len(want), "%s: %d transfers, the truth's %d" % (what, len(rows), len(want)))
    for row, x in zip(rows, want):
        diff = ota_compare.count_differences(row, x["on_air"]) if counts_only else \
            ota_compare.differences(row, x, stamp)
        check(not diff, "%s: transfer %s as the truth says%s" % (what, x["id"], ": " + "; ".join(diff) if diff else ""))


def fields(sandbox, so, cap, truth, names, two_pass, display_filter=None):
    args = ["-T", "fields", "-E", "separator=\t", "-E", "occurrence=a", "-E", "aggregator=;"]
    args += ["-2"] if two_pass else []
    args += ["-Y", display_filter] if display_filter else []
    for n in ["frame.number"] + names:
        args += ["-e", n]
    rows = {}
    for line in tshark(sandbox, so, cap, truth, args).splitlines():
        v = line.split("\t") + [""] * len(names)
        rows[int(v[0])] = dict(zip(names, v[1:]))
    return rows


# ---- foreign traffic ----

def foreign_frame(fcf, seq, payload, src=0x796f, dst=0x0000, pan=0x1a62):
    psdu = struct.pack("<HBHHH", fcf, seq, pan, dst, src) + payload
    return psdu + fcs(psdu)


def ack(seq):
    psdu = struct.pack("<HB", 0x0002, seq)
    return psdu + fcs(psdu)


def air_us(frame):
    return (len(frame) + 6) * 32


ZIGBEE_NWK = bytes([0x48, 0x02, 0x00, 0x00, 0x6f, 0x79, 0x1e, 0x5a])   # data, discover route, to 0x0000
DATA_FCF, COMMAND_FCF = 0x8861, 0x8863          # short addresses, PAN ID compression, ACK request


def case_foreign(check, sandbox, so, sim, tmp):
    cap, truth = simulate(sim, tmp, "base", [])
    linktype, recs = read_pcap(cap)
    # Silences of 400 ms or more: room for a burst 100 ms into each.
    gaps = [recs[i][0] for i in range(len(recs) - 1) if recs[i + 1][0] - recs[i][0] > 400000]
    bursts = []
    for k, start in enumerate(gaps[:12]):
        t, seq, burst = start + 100000, (0x40 + k) & 0xff, []
        zb = foreign_frame(DATA_FCF, seq, ZIGBEE_NWK + bytes([0x40, k, 0, 0, 4, 1, 1, 0]))
        burst.append((t, zb, "zigbee"))
        if k % 2:                     # not acknowledged: sent again, the same bytes
            t += air_us(zb) + 864 + 1600
            burst.append((t, zb, "zigbee retry"))
        burst.append((t + 192 + air_us(ack(seq)), ack(seq), "ack"))
        bursts.append(burst)
    # A Data Request, and 10 s later another command with its number.
    cmd_seq = 0x99
    first = foreign_frame(COMMAND_FCF, cmd_seq, b"\x04", src=0x5a5a)
    later = [g for g in gaps if g > gaps[0] + 10000000]
    check(bool(later), "foreign: the capture has a silence 10 s after its first")
    bursts.append([(gaps[0] + 300000, first, "command")])
    if later:
        bursts.append([(later[0] + 300000, foreign_frame(COMMAND_FCF, cmd_seq, b"\x05", src=0x5a5a), "other command")])
    added = sorted((t, f, what) for b in bursts for t, f, what in b)
    merged = sorted([(us, d, o, None) for us, d, o in recs] + [(t, f, len(f), what) for t, f, what in added],
                    key=lambda r: r[0])
    numbers = {i + 1: r[3] for i, r in enumerate(merged) if r[3]}
    out = os.path.join(tmp, "foreign.pcap")
    write_pcap(out, linktype, [r[:3] for r in merged])
    for two_pass in (False, True):
        rows = fields(sandbox, so, out, truth, ["meter.frag.mac_retry", "_ws.expert.message"], two_pass, "meter")
        hit = sorted((n, numbers[n]) for n in rows if n in numbers)
        check(not hit, "foreign (%s): no foreign frame matches `meter` (%d inserted): %s"
              % ("two passes" if two_pass else "one pass", len(numbers), hit[:6]))
    transfers_match(check, sandbox, so, out, truth, "foreign")


# ---- a clock that steps back ----

def case_backward(check, sandbox, so, sim, tmp):
    # 64-byte blocks: frames short enough for a retry to follow its first
    # transmission by less than the step ota_clock takes as it is.
    cap, truth = simulate(sim, tmp, "start", ["--timestamp", "start", "--szx", "2"])
    linktype, recs = read_pcap(cap)
    last = {}                         # (src bytes, seq) -> index of the sender's previous frame
    shift, out, retries = 0, [], []
    for i, (us, data, orig) in enumerate(recs):
        fcf = data[0] | data[1] << 8
        key = None
        if fcf & 7 == 1 and fcf & 0x20 and len(data) > 9:   # a data frame with an ACK request
            key = data[7:9]                       # short source (PAN ID compression)
        stepped = False
        if key and key in last and recs[last[key]][1] == data and i == last[key] + 1:
            gap = us - recs[last[key]][0]
            # The step puts the retry 300 us before its first transmission.
            if gap + 300 < 4200:
                shift += gap + 300
                stepped = True
        if key:
            last[key] = i
        out.append((us - shift, data, orig))
        if stepped:
            nxt = recs[i + 1][1] if i + 1 < len(recs) else b""
            acked = len(nxt) == 5 and nxt[0] & 7 == 2 and nxt[2] == data[2]
            retries.append((i + 1, acked))
    check(len(retries) >= 3, "backward: %d retries stamped before their first transmission" % len(retries))
    path = os.path.join(tmp, "backward.pcap")
    write_pcap(path, linktype, out)
    rows = fields(sandbox, so, path, truth, ["meter.frag.mac_retry", "meter.frag.sniffer_duplicate",
                                             "meter.frag.ack_in"], True)
    dups = [n for n, r in rows.items() if tv.is_true(r["meter.frag.sniffer_duplicate"])]
    check(not dups, "backward: no sniffer duplicate (the generator makes none): %s" % dups[:8])
    not_retry = [n for n, _ in retries if not tv.is_true(rows.get(n, {}).get("meter.frag.mac_retry", ""))]
    check(not not_retry, "backward: every retry stamped early is a MAC retry: %s" % not_retry[:8])
    ack_missed = [n for n, acked in retries if acked and rows.get(n, {}).get("meter.frag.ack_in") != str(n + 1)]
    check(not ack_missed, "backward: the ACK after such a retry is the retry's: %s" % ack_missed[:8])
    # Times moved with the clock: the counts are the truth's.
    transfers_match(check, sandbox, so, path, truth, "backward", counts_only=True)


# ---- the same frame twice ----

def case_merged(check, sandbox, so, sim, tmp):
    for name, args, stamp in (("gateway", ["--link", "gateway"], "end"), ("host", ["--timestamp", "host"], "host")):
        cap, truth = simulate(sim, tmp, name, args)
        linktype, recs = read_pcap(cap)
        path = os.path.join(tmp, "merged-%s.pcap" % name)
        write_pcap(path, linktype, [r for r in recs for _ in (0, 1)])
        transfers_match(check, sandbox, so, path, truth, "merged %s" % name, stamp=stamp)
        rows = fields(sandbox, so, path, truth, ["meter.ota.retransmission", "meter.frag.mac_retry"], True)
        wrong = [n for n in range(2, 2 * len(recs) + 1, 2) if n in rows and
                 (tv.is_true(rows[n]["meter.frag.mac_retry"]) or "True" in rows[n]["meter.ota.retransmission"] or
                  "1" in rows[n]["meter.ota.retransmission"].split(";"))]
        check(not wrong, "merged %s: no second copy of a record is a retransmission or a MAC retry: %s"
              % (name, wrong[:8]))


def main():
    sandbox, so, sim, case = sys.argv[1:5]
    check = Checks()
    with tempfile.TemporaryDirectory() as tmp:
        os.chmod(tmp, 0o755)
        {"foreign": case_foreign, "backward": case_backward, "merged": case_merged}[case](check, sandbox, so, sim, tmp)
    return check.summary("link edges: " + case)


if __name__ == "__main__":
    sys.exit(main())
