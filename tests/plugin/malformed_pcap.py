"""malformed_pcap.py: writes a gateway-side capture (Ethernet/IPv6/UDP/CoAP)
of hand-made malformed meter payloads, one request/response pair per case,
for the negative tests and docs/malformed-inputs.md. Every case names the
expert info it must raise and a field that must still be decoded."""
import hashlib
import struct

METER = bytes.fromhex("20010db8000100000212 4b0001a0c000".replace(" ", ""))
GATEWAY = bytes.fromhex("20010db800ff00000000000000000001")


# ---- CBOR by hand (so that it can be wrong on purpose) ----
def head(major, arg):
    if arg < 24:
        return bytes([major << 5 | arg])
    for ai, n in ((24, 1), (25, 2), (26, 4), (27, 8)):
        if arg < 1 << (8 * n):
            return bytes([major << 5 | ai]) + arg.to_bytes(n, "big")
    raise ValueError(arg)


def uint(v): return head(0, v)
def nint(v): return head(1, -1 - v)   # v < 0
def text(s): return head(3, len(s.encode())) + s.encode()
def bstr(b): return head(2, len(b)) + b
def arr(items): return head(4, len(items)) + b"".join(items)
def dmap(pairs): return head(5, len(pairs)) + b"".join(k + v for k, v in pairs)
def f64(x): return b"\xfb" + struct.pack(">d", x)


def config_pairs():
    return [(uint(1), text("mtr-test")), (uint(2), uint(7)), (uint(3), uint(900)),
            (uint(4), uint(21600)), (uint(5), text("meter/his")), (uint(6), uint(0)),
            (uint(7), f64(0.5)), (uint(8), text("Wh")), (uint(9), nint(-60))]


def senml(records):
    return arr([dmap(r) for r in records])


def rec(name=None, t=0, v=1.0, extra=()):
    r = []
    if name is not None:
        r.append((uint(0), text(name)))
    r += [(uint(6), uint(t)), (uint(2), f64(v))] + list(extra)
    return r


def image(body=b"\x5a" * 200, magic=0x96f3b83d, hdr_size=32, tlv_len_extra=0, bad_digest=False, img_size=None):
    size = len(body) if img_size is None else img_size
    hdr = struct.pack("<IIHHII BBHI I", magic, 0, hdr_size, 0, size, 0, 1, 0, 0, 7, 0)
    digest = hashlib.sha256(hdr + body).digest()
    if bad_digest:
        digest = bytes([digest[0] ^ 0xff]) + digest[1:]
    tlvs = struct.pack("<HH", 0x10, 32 + tlv_len_extra) + digest
    return hdr + body + struct.pack("<HH", 0x6907, 4 + len(tlvs)) + tlvs


# ---- CoAP, UDP, IPv6, Ethernet, pcap ----
def coap(mtype, code, mid, token, options, payload=b""):
    out = bytes([0x40 | mtype << 4 | len(token), code]) + struct.pack(">H", mid) + token
    last = 0
    for num, val in sorted(options, key=lambda o: o[0]):
        d, ln = num - last, len(val)
        last = num
        ext = b""
        dn = d if d < 13 else 13
        if d >= 13:
            ext += bytes([d - 13])
        lnn = ln if ln < 13 else 13
        if ln >= 13:
            ext += bytes([ln - 13])
        out += bytes([dn << 4 | lnn]) + ext + val
    return out + (b"\xff" + payload if payload else b"")


def path_opts(path):
    return [(11, seg.encode()) for seg in path.split("/")]


def udp_ipv6(src, dst, payload):
    udp_len = 8 + len(payload)
    pseudo = src + dst + struct.pack(">IxxxB", udp_len, 17)
    udp = struct.pack(">HHHH", 5683, 5683, udp_len, 0) + payload
    s = 0
    data = pseudo + udp + (b"\0" if len(udp) % 2 else b"")
    for i in range(0, len(data), 2):
        s += data[i] << 8 | data[i + 1]
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    csum = (~s & 0xffff) or 0xffff
    udp = udp[:6] + struct.pack(">H", csum) + udp[8:]
    ip = struct.pack(">IHBB", 0x60000000, len(udp), 17, 64) + src + dst
    eth = bytes.fromhex("020000000001020000000002" if dst == GATEWAY else "020000000002020000000001")
    return eth + b"\x86\xdd" + ip + udp


CASES = []


def case(name, what, expert, still, request, response, extra=()):
    """extra: more (request, response) pairs after the first; the case's
    frame is then the last response."""
    CASES.append({"name": name, "what": what, "expert": expert, "still": still,
                  "request": request, "response": response, "extra": list(extra)})


def build_cases():
    mid = [0x1000]

    def pair(req_path, req_code, resp_code, cf, payload, req_payload=None, req_cf=None, block2=None, block1=None):
        mid[0] += 1
        tok = struct.pack(">H", mid[0])
        ropts = path_opts(req_path) + [(15, b"tok=ABCDEFGHJKLM")]
        if req_cf is not None:
            ropts.append((12, bytes([req_cf])))
        if block2 is not None:
            ropts.append((23, block2 if isinstance(block2, bytes) else bytes([block2])))
        if block1 is not None:
            ropts.append((27, block1))
        req = coap(0, req_code, mid[0], tok, ropts, req_payload or b"")
        sopts = [(12, bytes([cf]))] if cf is not None else []
        if block2 is not None:
            sopts.append((23, block2 if isinstance(block2, bytes) else bytes([block2])))
        resp = coap(2, resp_code, mid[0], tok, sopts, payload or b"") if resp_code else None
        return req, resp

    good = config_pairs()
    case("cfg-truncated", "config blob cut in the middle of its map", "meter.cfg.truncated",
         "meter.cfg.device_id", *pair("meter/cfg", 1, 69, 60, dmap(good)[:-12]))
    case("cfg-wrong-type", "config_version (key 2) sent as text", "meter.cfg.wrong_type",
         "meter.cfg.sample_interval",
         *pair("meter/cfg", 1, 69, 60, dmap([good[0], (uint(2), text("seven"))] + good[2:])))
    deep = b"\x81" * 1000 + uint(0)
    case("cfg-nesting-1000", "an unknown key holding arrays nested 1000 deep", "meter.cfg.too_deep",
         "meter.cfg.unit", *pair("meter/cfg", 1, 69, 60, dmap(good[:2] + [(uint(99), deep)] + good[7:])))
    case("cfg-indefinite", "the blob as an indefinite-length map", "meter.cfg.indefinite",
         "coap.mid", *pair("meter/cfg", 1, 69, 60, b"\xbf" + b"".join(k + v for k, v in good) + b"\xff"))
    case("cfg-huge-length", "device_id declaring 4 GB of text", "meter.cfg.truncated",
         "coap.mid", *pair("meter/cfg", 1, 69, 60, dmap([(uint(1), b"\x7a\xff\xff\xff\xf0abc")])))
    case("cfg-huge-length-nested", "an unknown key's arrays holding a byte string that declares 2^63 bytes",
         "meter.cfg.truncated", "coap.mid",
         *pair("meter/cfg", 1, 69, 60, dmap(good[:2] + [(uint(99), b"\x81" * 20 + b"\x5b\x81\xcb" + b"x" * 30)])))
    case("cfg-not-map", "the blob is an array", "meter.cfg.not_map", "coap.mid",
         *pair("meter/cfg", 1, 69, 60, arr([uint(1), uint(2)])))
    case("cfg-unknown-key", "key 99 that no table names", "meter.cfg.unknown_key",
         "meter.cfg.device_id", *pair("meter/cfg", 1, 69, 60, dmap(good + [(uint(99), uint(5))])))
    his_ok = rec("energy", 0, 1.0, [(nint(-2), text("urn:dev:mac:0011:")), (nint(-3), uint(1772359200))])
    case("his-not-array", "the pack is a map", "meter.his.not_array", "coap.mid",
         *pair("meter/his", 2, 68, None, None, dmap(his_ok), 112))
    case("his-empty", "an empty pack", "meter.his.empty_pack", "coap.mid",
         *pair("meter/his", 2, 68, None, None, arr([]), 112))
    case("his-missing-name", "a record with neither n nor a base name", "meter.his.missing_name",
         "meter.his.value", *pair("meter/his", 2, 68, None, None, senml([rec(None, 5, 2.0)]), 112))
    case("his-wrong-type", "n sent as an integer", "meter.his.wrong_type", "meter.his.records",
         *pair("meter/his", 2, 68, None, None,
               senml([[(nint(-2), text("urn:x:")), (uint(0), uint(7)), (uint(2), f64(1.0))]]), 112))
    case("his-unknown-label", "a record with label 99", "meter.his.unknown_label", "meter.his.name",
         *pair("meter/his", 2, 68, None, None, senml([rec("energy", 0, 1.0, [(uint(99), uint(1))])]), 112))
    case("his-truncated", "a pack cut inside its second record", "meter.his.truncated",
         "coap.mid", *pair("meter/his", 2, 68, None, None,
                           senml([rec("energy", 0, 1.0), rec("energy", 60, 2.0)])[:-5], 112))
    # NUM 0xFFFFF, M=1, SZX 6: the block starts 1 GiB into the pack.
    case("his-block1-offset-1gib", "a Block1 NUM whose byte offset is 1 GiB", "meter.his.reassembly_error",
         "meter.his.block.offset", *pair("meter/his", 2, 95, None, None, senml([rec("energy")]), 112,
                                         block1=b"\xff\xff\xfe"))
    case("fw-bad-magic", "block 0 of an image with a wrong magic", "meter.fw.bad_magic",
         "meter.fw.hdr_size", *pair("firmware/bad-magic.img", 1, 69, 42, image(magic=0x12345678), block2=0x06))
    case("fw-tlv-past-end", "a TLV whose length runs past the image", "meter.fw.tlv_past_end",
         "meter.fw.version", *pair("firmware/tlv.img", 1, 69, 42, image(tlv_len_extra=40), block2=0x06))
    case("fw-digest-mismatch", "an image whose SHA-256 TLV is wrong", "meter.fw.sha256_bad",
         "meter.fw.version", *pair("firmware/digest.img", 1, 69, 42, image(bad_digest=True), block2=0x06))
    case("fw-hdr-size-beyond", "hdr_size larger than the image", "meter.fw.hdr_size_bad",
         "meter.fw.magic", *pair("firmware/hdr.img", 1, 69, 42, image(hdr_size=4000), block2=0x06))
    case("fw-img-size-huge", "img_size 0xFFFFFFFF in the header", "meter.fw.img_size_bad",
         "meter.fw.magic", *pair("firmware/huge.img", 1, 69, 42, image(img_size=0xFFFFFFFF), block2=0x06))
    # A last block that ends before the image's own header says it does: a
    # size read off the image is a lower bound, and this one is not reached.
    case("fw-shorter-than-header", "a one-block image whose header says img_size 4000",
         "meter.ota.last_block_size", "meter.fw.version",
         *pair("firmware/short.img", 1, 69, 42, image(img_size=4000), block2=0x06))
    # NUM 0xFFFFF at SZX 6: the block starts 1 GiB in.
    case("fw-block-offset-1gib", "a Block2 NUM whose byte offset is 1 GiB", "meter.fw.too_large",
         "coap.mid", *pair("firmware/far.img", 1, 69, 42, b"\x5a" * 64, block2=b"\xff\xff\xfe"))
    # The same block of the same transfer answered twice with different bytes.
    req, resp = pair("firmware/twice.img", 1, 69, 42, image(), block2=0x0e)
    tok = req[4:6]
    mid2 = struct.unpack(">H", req[2:4])[0]
    resp2 = coap(2, 69, mid2, tok, [(12, bytes([42])), (23, bytes([0x0e]))], image(body=b"\xa5" * 200))
    case("fw-block-conflict", "a block answered twice with different bytes", "meter.fw.block_conflict",
         "coap.mid", req, resp, extra=[(req, resp2)])


def write(path):
    build_cases()
    t = 1772359200
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
        frame = 0
        for i, c in enumerate(CASES):
            msgs = [(c["request"], METER, GATEWAY), (c["response"], GATEWAY, METER)]
            for rq, rs in c["extra"]:
                msgs += [(rq, METER, GATEWAY), (rs, GATEWAY, METER)]
            for msg, src, dst in msgs:
                if msg is None:
                    continue
                pkt = udp_ipv6(src, dst, msg)
                frame += 1
                # The frame that carries the payload: the history request,
                # the config and firmware responses.
                if (src == METER) == c["name"].startswith("his-"):
                    c["frame"] = frame
                f.write(struct.pack("<IIII", t + i, frame * 1000, len(pkt), len(pkt)) + pkt)
    return CASES
