#!/usr/bin/env python3
"""test_live_terminal.py METERSCOPE COMMITTED_DIR: meterscope --live in a
real terminal (a detached tmux session, 160x40). replay_capture.py writes
default.pcap into a FIFO 10 times faster, with a 40 s silence (capture
clock) inserted in the firmware download; capture-pane must show, while
the download goes on, its live line (transfer number, path, a
progress bar with its percent and bytes of the image size the truth gives)
and the stall alert; at the end of input the table report follows.
Every wait polls the pane with a deadline."""
import json
import os
import re
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from analyser_run import Analyser, prefs_args   # noqa: E402
from checks import Checks                          # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
REPLAY = os.path.join(HERE, "replay_capture.py")
check = Checks()


def main():
    binary, committed = sys.argv[1:3]
    tmux = shutil.which("tmux")
    if not tmux:
        print("tmux not found: scripts/install-deps.sh installs it")
        return 1
    cap = os.path.join(committed, "default.pcap")
    with open(cap + ".truth.json") as f:
        truth = json.load(f)
    fw = [x for x in truth["transfers"] if x["uri_path"].startswith("/firmware/")][0]
    a = Analyser(binary)
    sock = os.path.join(a.tmp, "tmux.sock")
    try:
        src = a.copy(cap)
        fifo = os.path.join(a.tmp, "live.pcap")
        os.mkfifo(fifo, 0o666)
        os.chmod(fifo, 0o666)
        # The pane's shell gets the tmux server's environment, not this
        # one's: what the run needs (the sanitizer build's runtimes) is passed on.
        keep = ["%s=%s" % (k, os.environ[k]) for k in ("LD_PRELOAD", "ASAN_OPTIONS", "UBSAN_OPTIONS",
                                                       "WIRESHARK_EXTCAP_DIR") if k in os.environ]
        cmd = a.command(["--live", "--stall", "5"] + prefs_args(truth) + [fifo], env=keep)
        shell = " ".join("'%s'" % c for c in cmd) + '; echo "live exit $?"; read x'
        subprocess.run([tmux, "-S", sock, "new-session", "-d", "-s", "live", "-x", "160", "-y", "40", shell],
                       check=True)
        # The stall goes before the first frame past the middle of the download.
        middle = (fw["first_request_us"] + fw["last_response_us"]) // 2
        import struct
        data = open(src, "rb").read()
        off, frame, stall_before = 24, 0, 0
        while off + 16 <= len(data) and not stall_before:
            sec, usec, incl, _ = struct.unpack("<IIII", data[off:off + 16])
            frame += 1
            if sec * 1000000 + usec >= middle:
                stall_before = frame
            off += 16 + incl
        replay = subprocess.Popen([sys.executable, REPLAY, src, fifo, "--speed", "10", "--stall-before",
                                   str(stall_before), "--stall-s", "40"])

        def pane(history=False):
            # the report is longer than the pane: its start is in the history
            start = ["-S", "-400"] if history else []
            return subprocess.run([tmux, "-S", sock, "capture-pane", "-p", "-t", "live"] + start,
                                  capture_output=True, text=True).stdout

        def wait_for(pattern, seconds=60):
            deadline = time.monotonic() + seconds
            while time.monotonic() < deadline:
                text = pane()
                m = re.search(pattern, text, re.M)
                if m:
                    return m, text
                time.sleep(0.05)
            return None, pane()

        line = r"^#%d \S+ %s \[[=> ]{20}\] +(\d+\.\d)%% (\d+)/%d B" % (fw["id"], re.escape(fw["uri_path"]),
                                                                      fw["resource_size"])
        m, text = wait_for(line)
        check(m is not None, "the download's live line: transfer, path, bar, percent and bytes of %d" %
              fw["resource_size"])
        # Live, not at the end: its first showing is part of the download
        # (by the line's own bytes, not by whether the replay is still
        # running, which a loaded machine may let it finish first).
        if m:
            pct, got = float(m.group(1)), int(m.group(2))
            check(got < fw["resource_size"], "it is shown while the download goes on (%d of %d bytes)"
                  % (got, fw["resource_size"]))
            check(abs(pct - 100.0 * got / fw["resource_size"]) < 0.1, "its percent is its bytes over the size")
        m, text = wait_for(r"ALERT stall: #%d .*no message for (\d+\.\d) s" % fw["id"])
        check(m is not None and float(m.group(1)) >= 40, "the inserted silence is a stall alert (%s)" %
              (m.group(1) if m else text[-500:]))
        m2, text = wait_for(r"ETA \d+")
        check(m2 is not None, "the live line gives an ETA")
        replay.wait(timeout=120)
        m, text = wait_for(r"^live exit (\d+)")
        check(m is not None and m.group(1) == "0", "at the end of input it exits 0")
        check("block-wise transfers" in pane(history=True), "and the table report follows")
    finally:
        subprocess.run([tmux, "-S", sock, "kill-server"], capture_output=True)
        a.close()
    return check.summary("live_terminal")


if __name__ == "__main__":
    sys.exit(main())
