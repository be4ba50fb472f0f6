"""restamp.py: the frames of a pcap capture written again as pcapng with
timestamps chosen by the caller, in the interface's own resolution
(if_tsresol) and with an if_tsoffset if wanted, for the timestamp edge
cases of tests/plugin/test_timestamp_edges.py."""
import struct


def read_pcap(path):
    """(linktype, [(stamp_us, frame bytes, original length)]) of a classic pcap
    (microsecond or nanosecond magic; stamps are given back in microseconds,
    nanoseconds as they are with ns=True)."""
    with open(path, "rb") as f:
        data = f.read()
    magic = data[:4]
    end = "<" if magic in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1") else ">"
    nano = magic in (b"\x4d\x3c\xb2\xa1", b"\xa1\xb2\x3c\x4d")
    linktype = struct.unpack(end + "I", data[20:24])[0]
    recs, at = [], 24
    while at + 16 <= len(data):
        sec, frac, incl, orig = struct.unpack(end + "IIII", data[at:at + 16])
        us = sec * 1000000 + (frac // 1000 if nano else frac)
        recs.append((us, data[at + 16:at + 16 + incl], orig))
        at += 16 + incl
    return linktype, recs


def _option(code, value):
    pad = (-len(value)) % 4
    return struct.pack("<HH", code, len(value)) + value + b"\0" * pad


def _block(kind, body):
    pad = (-len(body)) % 4
    body += b"\0" * pad
    n = 12 + len(body)
    return struct.pack("<II", kind, n) + body + struct.pack("<I", n)


def write_pcapng(path, linktype, frames, tsresol=6, tsoffset=None):
    """frames: [(stamp in units of 10^-tsresol s, bytes, original length)];
    a stamp is an unsigned 64-bit count, as pcapng stores it."""
    shb = _block(0x0A0D0D0A, struct.pack("<IHHq", 0x1A2B3C4D, 1, 0, -1) + _option(0, b""))
    opts = _option(9, bytes([tsresol]))
    if tsoffset is not None:
        opts += _option(14, struct.pack("<q", tsoffset))
    idb = _block(1, struct.pack("<HHI", linktype, 0, 0) + opts + _option(0, b""))
    out = [shb, idb]
    for stamp, data, orig in frames:
        if not 0 <= stamp < 1 << 64:
            raise ValueError("a pcapng stamp is an unsigned 64-bit count: %d" % stamp)
        out.append(_block(6, struct.pack("<IIIII", 0, stamp >> 32, stamp & 0xffffffff, len(data), orig) + data))
    with open(path, "wb") as f:
        f.write(b"".join(out))
