#!/usr/bin/env python3
"""same_mid_capture.py N OUT.pcap [wpan|gateway]: a block-wise download of N
16-byte blocks by a broken client whose every CON GET carries Message ID 7,
each answered by a piggy-backed 2.05 with the block (RFC 7252 3, RFC 7959
2.2), 20 ms apart: the worst case for matching messages by Message ID.
`wpan` (the default): IEEE 802.15.4 frames with FCS (link type 195), 6LoWPAN
IPHC with inline addresses and UDP, each acknowledged; `gateway`: Ethernet
and IPv6. Written by hand: the frames are a few struct.pack calls."""
import struct
import sys

from ieee802154 import fcs

METER = bytes.fromhex("20010db8000100000212" "4b0001a0c000")
GATEWAY = bytes.fromhex("20010db800ff00000000" "000000000001")


def coap(mtype, code, mid, token, options, payload=b""):
    out = bytes([0x40 | (mtype << 4) | len(token), code]) + struct.pack(">H", mid) + token
    last = 0
    for number, value in options:
        delta = number - last
        last = number
        ext = b""
        if delta >= 13:
            ext, delta = bytes([delta - 13]), 13
        length = len(value)
        lext = b""
        if length >= 13:
            lext, length = bytes([length - 13]), 13
        out += bytes([(delta << 4) | length]) + ext + lext + value
    return out + (b"\xff" + payload if payload else b"")


def block(num, more, szx):
    v = (num << 4) | (8 if more else 0) | szx
    return v.to_bytes(max(1, (v.bit_length() + 7) // 8), "big") if v else b""


def udp_ipv6(src, dst, sport, dport, data):
    udp_len = 8 + len(data)
    pseudo = src + dst + struct.pack(">IxxxB", udp_len, 17)
    hdr = struct.pack(">HHHH", sport, dport, udp_len, 0)
    s = sum(struct.unpack(">%dH" % ((len(pseudo + hdr + data) + 1) // 2),
                          (pseudo + hdr + data + b"\0")[:((len(pseudo + hdr + data) + 1) // 2) * 2]))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    csum = (~s & 0xffff) or 0xffff
    hdr = struct.pack(">HHHH", sport, dport, udp_len, csum)
    ip = struct.pack(">IHBB", 6 << 28, udp_len, 17, 64) + src + dst
    return ip + hdr + data


def wpan_data(seq, src16, dst16, payload):
    # Data frame, ack request, PAN ID compression, short addresses, 2006.
    hdr = struct.pack("<HBHHH", 0x8861 | 0x0020, seq, 0xface, dst16, src16)
    return hdr + payload + fcs(hdr + payload)


def wpan_ack(seq):
    hdr = struct.pack("<HB", 0x0002, seq)
    return hdr + fcs(hdr)


def iphc_udp(src, dst, sport, dport, data):
    # IPHC: TF elided, next header inline, hop limit 64, addresses inline.
    return bytes([0x7a, 0x00, 17]) + src + dst + udp_ipv6(src, dst, sport, dport, data)[40:]


def main():
    n, out = int(sys.argv[1]), sys.argv[2]
    link = sys.argv[3] if len(sys.argv) > 3 else "wpan"
    t = 1772359200.0
    with open(out, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 195 if link == "wpan" else 1))

        def record(ts, frame):
            f.write(struct.pack("<IIII", int(ts), int(round((ts % 1) * 1e6)) % 1000000, len(frame), len(frame)))
            f.write(frame)

        for i in range(n):
            path = [(11, b"firmware"), (11, b"v9.img")]
            req = coap(0, 1, 7, b"\x07", path + [(23, block(i, False, 0))])
            resp = coap(2, 0x45, 7, b"\x07", [(23, block(i, i + 1 < n, 0))], bytes(16))
            for k, (src, dst, sport, dport, data) in enumerate(
                    ((METER, GATEWAY, 49152, 5683, req), (GATEWAY, METER, 5683, 49152, resp))):
                ts = t + i * 0.02 + k * 0.01
                if link == "wpan":
                    seq = (2 * i + k) & 0xff
                    frame = wpan_data(seq, 0x0801 if k == 0 else 0x0000, 0x0000 if k == 0 else 0x0801,
                                      iphc_udp(src, dst, sport, dport, data))
                    record(ts, frame)
                    record(ts + 0.000192 + 11 * 32e-6, wpan_ack(seq))
                else:
                    record(ts, b"\x02\0\0\0\0\x01" + b"\x02\0\0\0\0\x02" + b"\x86\xdd" +
                           udp_ipv6(src, dst, sport, dport, data))


if __name__ == "__main__":
    main()
