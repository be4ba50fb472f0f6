"""ieee802154.py: what the hand-written 802.15.4 captures of the tests and
benchmarks need from IEEE 802.15.4 itself."""
import struct


def fcs(data):
    """IEEE 802.15.4 FCS: CRC-16/KERMIT, little-endian."""
    crc = 0
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ 0x8408 if crc & 1 else crc >> 1
    return struct.pack("<H", crc)
