#!/usr/bin/env python3
"""test_image_size.py SANDBOX PLUGIN_SO METER_SIM: firmware downloads whose
size only the MCUboot image itself tells (no config blob, no Size2:
meter-sim --no-config --gw-no-size2). The last block straddles the TLV area
in every way (the TLV info in the block before the last, split across the
two, inside the last; 16-byte blocks, whose block 0 holds only the first
half of the header). A correct image never gets meter.ota.last_block_size;
the transfer's size_hint is the truth's resource_size (header, body and
TLV area) and its percent ends at 100, never above. Cut before the block
with the TLV info, the size is the lower bound the header gives (hdr_size
+ img_size + the 4-byte TLV info); cut after it, the whole size."""
import os
import subprocess
import sys
import tempfile

from checks import Checks
from tshark_view import load_truth, ota_tsv

HDR = 32                        # the generator's MCUboot hdr_size, no protected TLVs
# body size, SZX: where the TLV info (at HDR + body) falls
CASES = [(2000, 4, "the TLV info inside the block before the last"),
         (2014, 4, "the TLV info split across the last two blocks"),
         (2020, 4, "the TLV info inside the last block"),
         (100, 0, "16-byte blocks: block 0 holds half the header")]


def tshark(sandbox, so, cap, truth, args):
    prefs = []
    for p in truth.get("wireshark_prefs", []):
        prefs += ["-o", p]
    res = subprocess.run([sandbox, so, "-n", "-r", cap] + prefs + args, capture_output=True, text=True)
    return res


def firmware_row(sandbox, so, cap, truth):
    res = tshark(sandbox, so, cap, truth, ["-q", "-z", "meter,ota,tsv"])
    rows = [t for t in ota_tsv(res.stdout)[0] if t["path"].startswith("/firmware/")] if res.returncode == 0 else []
    return rows[0] if len(rows) == 1 else None


def frames_of(sandbox, so, cap, truth, display_filter, fields=("frame.number",)):
    args = ["-2", "-Y", display_filter, "-T", "fields", "-E", "occurrence=a"]
    for f in fields:
        args += ["-e", f]
    res = tshark(sandbox, so, cap, truth, args)
    return [line.split("\t") for line in res.stdout.splitlines()]


def cut(cap, out, last_frame):
    # editcap is not under test: without the sanitizer build's preloaded runtimes.
    env = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}
    subprocess.run(["editcap", "-r", cap, out, "1-%d" % last_frame], check=True, capture_output=True, env=env)
    os.chmod(out, 0o644)


def main():
    sandbox, so, sim = sys.argv[1:4]
    check = Checks()
    with tempfile.TemporaryDirectory() as tmp:
        os.chmod(tmp, 0o755)
        for body, szx, what in CASES:
            label = "body %d, SZX %d (%s)" % (body, szx, what)
            cap = os.path.join(tmp, "image-%d-%d.pcap" % (body, szx))
            subprocess.run([sim, "--scenario", "default", "--no-config", "--no-history", "--gw-no-size2",
                            "--image-size", str(body), "--szx", str(szx), "--quiet", "--output", cap], check=True)
            os.chmod(cap, 0o644)
            truth = load_truth(cap)
            fw = [x for x in truth["transfers"] if x["uri_path"].startswith("/firmware/")][0]
            size = fw["resource_size"]
            r = firmware_row(sandbox, so, cap, truth)
            check(r and r["complete"] and r["bytes"] == size and r["size_hint"] == size,
                  "%s: complete, %d bytes, size_hint %s (truth %d)" % (label, r and r["bytes"],
                                                                       r and r["size_hint"], size))
            warned = frames_of(sandbox, so, cap, truth, "meter.ota.last_block_size")
            check(not warned, "%s: no meter.ota.last_block_size on a correct image (%d frames)"
                  % (label, len(warned)))
            pct = [float(v) for row in frames_of(sandbox, so, cap, truth, "meter.ota.percent", ["meter.ota.percent"])
                   for v in row[0].split(",") if v]
            check(pct and max(pct) <= 100 + 1e-9 and abs(pct[-1] - 100) < 1e-9,
                  "%s: percent never above 100, 100 at the end (max %s, last %s)"
                  % (label, pct and max(pct), pct and pct[-1]))
            if szx != 4:
                continue
            # Cut the capture before and after the first response carrying the TLV info.
            block = 256
            info_block = (HDR + body) // block
            first = frames_of(sandbox, so, cap, truth, "coap.code == 69 && meter.ota.offset == %d"
                              % (info_block * block))
            after = frames_of(sandbox, so, cap, truth, "coap.code == 69 && meter.ota.offset == %d"
                              % ((info_block + 1) * block))
            if not first:
                check(False, "%s: no response carries block %d" % (label, info_block))
                continue
            for name, last_frame, wanted in (
                    ("cut before the TLV info", int(first[0][0]) - 1, HDR + body + 4),
                    ("cut after it", int(after[0][0]) - 1 if after else None, size)):
                if last_frame is None or (name == "cut after it" and (HDR + body + 4) > (info_block + 1) * block):
                    continue          # the TLV info is not whole before the last block
                part = os.path.join(tmp, "image-%d-%d-%s.pcap" % (body, szx, name.split()[1]))
                cut(cap, part, last_frame)
                r = firmware_row(sandbox, so, part, truth)
                check(r and not r["complete"] and r["size_hint"] == wanted,
                      "%s, %s: incomplete, size_hint %s (%d wanted)" % (label, name, r and r["size_hint"], wanted))
                check(r and r["eta_s"] >= 0, "%s, %s: an ETA (%s s)" % (label, name, r and r["eta_s"]))
    return check.summary("image_size")


if __name__ == "__main__":
    sys.exit(main())
