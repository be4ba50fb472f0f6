"""stock_firmware.py: what stock tshark (no meterscope plugin) shows of a
Block2 firmware download in a capture, for the tests of the plugin's
statistics table: its distinct blocks in the 2.05 responses, and the frame
of its first request."""
import os
import subprocess

from tshark_view import stock_only_args

CONTEXT = ["-o", "6lowpan.context1:2001:db8:1::/64"]


def _field(capture, display_filter, field):
    cmd = [os.environ.get("TSHARK", "tshark"), "-n", *stock_only_args(), "-r", capture, *CONTEXT,
           "-Y", display_filter, "-T", "fields", "-e", field]
    return subprocess.run(cmd, check=True, capture_output=True, text=True, timeout=60,
                          env=dict(os.environ, LC_ALL="C")).stdout.split()


def blocks(capture):
    """Distinct Block2 numbers of the 2.05 responses. In the committed
    captures only firmware downloads use Block2 on a 2.05: the history
    upload is Block1, the config blob one message."""
    return len(set(_field(capture, "coap.code == 69 && coap.opt.block_number", "coap.opt.block_number")))


def first_request(capture, image):
    """The frame of the first GET for /firmware/IMAGE, as text ("" if none)."""
    frames = _field(capture, 'coap.code == 1 && coap.opt.uri_path == "%s"' % image, "frame.number")
    return frames[0] if frames else ""
