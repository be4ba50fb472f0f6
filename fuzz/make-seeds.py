#!/usr/bin/env python3
"""make-seeds.py COMMITTED_DIR OUT_DIR [PLUGIN_SO]: seed corpora for the fuzz targets,
taken from the committed captures with stock tshark (CoAP messages, SenML
history payloads, the firmware images the plugin exports) and from their
raw 802.15.4 frames (fragment accounting), and the config blobs. Small on purpose: the fuzzer
grows its own corpus from these. Run it with PYTHONPATH=tests/lib (tshark_view).
With PLUGIN_SO, also the analyser's input: what tshark with that plugin prints
(`-z meter,ota,tsv`) for a few of the captures, for fuzz_tsv_reader."""
import hashlib
import json
import os
import struct
import subprocess
import sys

import tshark_view

CTX = ["-o", "6lowpan.context1:2001:db8:1::/64"] + tshark_view.stock_only_args()


def save(out, target, data):
    d = os.path.join(out, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, hashlib.sha1(data).hexdigest()[:16]), "wb") as f:
        f.write(data)


def fields(cap, display_filter, field):
    res = subprocess.run(["tshark", "-n", "-r", cap] + CTX + ["-Y", display_filter, "-T", "fields", "-e", field],
                         capture_output=True, text=True, check=True)
    return [bytes.fromhex(line.replace(":", "")) for line in res.stdout.split() if line]


def coap_payload(msg):
    """The payload of a CoAP message (RFC 7252 section 3), b"" if none."""
    if len(msg) < 4:
        return b""
    at = 4 + (msg[0] & 0x0f)
    while at < len(msg) and msg[at] != 0xff:
        delta, length = msg[at] >> 4, msg[at] & 0x0f
        at += 1
        for nibble in (delta, length):
            at += 1 if nibble == 13 else 2 if nibble == 14 else 0
        ext = msg[at - (2 if length == 14 else 1 if length == 13 else 0):at] if length >= 13 else b""
        if length == 13:
            length = ext[0] + 13
        elif length == 14:
            length = int.from_bytes(ext, "big") + 269
        at += length
    return msg[at + 1:]


def pcap_records(path, limit):
    with open(path, "rb") as f:
        head = f.read(24)
        magic, = struct.unpack("<I", head[:4])
        end = "<" if magic in (0xa1b2c3d4, 0xa1b23c4d) else ">"
        linktype = struct.unpack(end + "I", head[20:24])[0]
        recs = []
        while len(recs) < limit:
            h = f.read(16)
            if len(h) < 16:
                break
            _, _, incl, _ = struct.unpack(end + "IIII", h)
            recs.append(f.read(incl))
        return linktype, recs


# Small, each with something of its own: a download and an upload, a mesh,
# two meters, a renegotiated SZX, a secured network, an OpenThread stack,
# an error response, a gateway-side view.
TSV_CAPTURES = ("default", "multihop", "two-meters", "renegotiate", "secure", "openthread", "edge-szx7",
                "default-gateway")


def tsv_seeds(committed, out, plugin):
    sandbox = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "tshark-sandbox")
    for name in TSV_CAPTURES:
        cap = os.path.join(committed, name + ".pcap")
        with open(cap + ".truth.json") as f:
            prefs = json.load(f).get("wireshark_prefs", [])
        cmd = [sandbox, plugin, "-n", "-r", cap] + [a for p in prefs for a in ("-o", p)] + ["-q", "-z", "meter,ota,tsv"]
        save(out, "tsv_reader", subprocess.run(cmd, capture_output=True, check=True).stdout)


def main():
    committed, out = sys.argv[1:3]
    if len(sys.argv) > 3:
        tsv_seeds(committed, out, sys.argv[3])
    for name in ("default", "multihop", "two-meters", "edge-szx7", "openthread"):
        cap = os.path.join(committed, name + ".pcap")
        for i, msg in enumerate(fields(cap, "coap", "udp.payload")[:40]):
            save(out, "coap_view", msg)
        # config blobs (responses with Content-Format 60), behind the
        # harness's first byte: 0 = the reference keys, 1 = the key table's rows too.
        cfg = [coap_payload(m) for m in fields(cap, 'coap.opt.ctype == "application/cbor"', "udp.payload")]
        for payload in [p for p in cfg if p][:2]:
            save(out, "config", b"\x00" + payload)
            save(out, "config", b"\x01" + payload)
        his = [coap_payload(m) for m in fields(cap, 'coap.opt.uri_path == "his"', "udp.payload")]
        for payload in [p for p in his if p][:4]:
            save(out, "senml", payload)
        linktype, recs = pcap_records(cap, 400)
        if linktype == 195:
            # [link type choice 0 = 195] then [u16 length][u16 microseconds][record],
            # a run of 100 frames per seed.
            for start in range(0, len(recs), 100):
                blob = b"\x00" + b"".join(struct.pack(">HH", len(r), 3000) + r for r in recs[start:start + 100])
                save(out, "link", blob)
    # Images: the firmware blocks of the default capture, concatenated in order.
    blocks = [coap_payload(m) for m in fields(os.path.join(committed, "default.pcap"),
                                              "coap.code == 69 && coap.opt.block_number", "udp.payload")]
    # From the block that starts with the MCUboot magic; retransmitted blocks once.
    start = next(i for i, b in enumerate(blocks) if b[:4] == bytes.fromhex("3db8f396"))
    image, seen = b"", set()
    for b in blocks[start:]:
        if b not in seen:
            seen.add(b)
            image += b
    save(out, "mcuboot", image[:4096])
    save(out, "mcuboot", image)
    # A config blob with the extra keys fuzz_config puts in the key table
    # (20..27, one of each type; first byte 1) and key 2 sent as text (the
    # table gives it that type): {20: "abc", 21: 5, 22: -3, 23: 1.5, 24: h'0102', 25: {1: 2},
    # 26: [1, 2], 27: true, 2: "seven"}.
    save(out, "config", bytes.fromhex("01a9146361626315051622" "17f93e00" "1818420102" "1819a10102"
                                      "181a820102" "181bf5" "026573657665" "6e"))
    # Tracker event runs: a few of each opcode.
    for seed in (bytes(range(64)), bytes([0, 1, 2, 3] * 32), bytes([3, 0, 1, 0, 0x80, 3, 1, 2] * 16)):
        save(out, "ota_track", seed)


if __name__ == "__main__":
    main()
