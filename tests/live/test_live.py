#!/usr/bin/env python3
"""test_live.py METERSCOPE COMMITTED_DIR: meterscope --live on a capture as
it is written. replay_capture.py writes default.pcap into a FIFO 20 times
faster than it was captured, with a silence of 60 s (capture clock, 3 s of
wall clock) inserted in the middle of the firmware download (the truth's
first request and last response say where), and logs when it wrote each
frame. Checked:
- events come while the replay runs: every event arrives within LATE_S
  (3 s) of the replayer writing its frame, and most of them before the
  replay ends (the replay lasts about 40 s: an event held to the end
  would be tens of seconds late);
- the inserted silence is an alert on the capture's clock (a stall of at
  least 60 s before the first frame after it) and, while it lasts, on the
  wall clock (no frame for more than --stall 1 s: the silence lasts 3 s
  on the wall clock, and frames the pipe held before it shorten what
  tshark sees of it);
- the final report (-o, JSON) equals byte for byte the offline report of
  the bytes the replayer wrote (its --copy), under the same name;
- SIGINT in the middle of a slow replay: exit 0, a report of what came, no
  process of it left, no temporary in its TMPDIR;
- --live-restart-after 2000 on two-meters.pcap (always a transfer going
  on, so every restart is the forced one at 4000 frames) from standard
  input: the report has a part per tshark, frames 1-4000, 4001-8000, then
  the rest, together every frame of the capture (counted by the harness);
  the events' frame numbers are the capture's, their parts 1 to 3."""
import json
import re
import os
import signal
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from analyser_run import Analyser, prefs_args   # noqa: E402
from checks import Checks                          # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
REPLAY = os.path.join(HERE, "replay_capture.py")
WAIT_S = 60   # an upper bound for a hang only
SPEED, STALL_S = 20.0, 60.0
# How late an event may come after its frame was written. The events are
# seconds apart on the capture's clock, a twentieth of that here; tshark and
# meterscope share two cores with another test under ctest -j2, and run
# two to three times slower in the sanitizer build: 1 s failed there now
# and then, for no fault of the live path.
LATE_S = 3.0
check = Checks()


def frame_times(path):
    """The 1-based frame numbers' capture times (us) of a classic pcap."""
    import struct
    data = open(path, "rb").read()
    e = "<" if data[:4] in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1") else ">"
    out, off = [], 24
    while off + 16 <= len(data):
        sec, usec, incl, _ = struct.unpack(e + "IIII", data[off:off + 16])
        out.append(sec * 1000000 + usec)
        off += 16 + incl
    return out


def read_log(path):
    with open(path) as f:
        return {int(a): float(b) for a, b in (line.split() for line in f if line.strip())}


def descendants(pid):
    kids, found = {}, set()
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open("/proc/%s/stat" % name) as f:
                    rest = f.read().rsplit(")", 1)[1].split()
                kids.setdefault(int(rest[1]), []).append(int(name))
            except OSError:
                pass
    todo = [pid]
    while todo:
        for c in kids.get(todo.pop(), []):
            found.add(c)
            todo.append(c)
    return found


def live_run(a, truth, cap, extra):
    """The replay into a FIFO named like the capture, meterscope --live on it;
    returns (proc, lines [(monotonic, text)], reader thread, replayer, paths)."""
    d = os.path.join(a.tmp, "live")
    os.makedirs(d, exist_ok=True)
    os.chmod(d, 0o777)
    fifo = os.path.join(d, "default.pcap")
    if os.path.exists(fifo):
        os.unlink(fifo)
    os.mkfifo(fifo, 0o666)
    os.chmod(fifo, 0o666)
    tmpdir = os.path.join(a.tmp, "tmp")
    os.makedirs(tmpdir, exist_ok=True)
    os.chmod(tmpdir, 0o777)
    args = ["--live", "--stall", "1"] + prefs_args(truth) + extra + ["default.pcap"]
    proc = subprocess.Popen(a.command(args, env=["TMPDIR=" + tmpdir]), cwd=d, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    lines = []

    def read():
        for line in proc.stdout:
            lines.append((time.monotonic(), line.decode()))
    t = threading.Thread(target=read)
    t.start()
    return proc, lines, t, fifo, d, tmpdir


def wait_ready(proc, lines):
    """Until its tshark has started (the "ready" line): what is timed is each frame's way, not tshark's start."""
    deadline = time.monotonic() + WAIT_S
    while time.monotonic() < deadline and proc.poll() is None and not any('"event":"ready"' in x for _, x in lines):
        time.sleep(0.01)


def main():
    binary, committed = sys.argv[1:3]
    cap = os.path.join(committed, "default.pcap")
    with open(cap + ".truth.json") as f:
        truth = json.load(f)
    fw = [x for x in truth["transfers"] if x["uri_path"].startswith("/firmware/")][0]
    middle = (fw["first_request_us"] + fw["last_response_us"]) // 2
    stall_before = next(i + 1 for i, t in enumerate(frame_times(cap)) if t >= middle)
    a = Analyser(binary)
    try:
        src = a.copy(cap)
        report = "report.json"
        proc, lines, reader, fifo, d, tmpdir = live_run(a, truth, src, ["--format", "jsonl", "-o", report])
        log, copy = os.path.join(a.tmp, "replay.log"), os.path.join(a.tmp, "copy.pcap")
        # The FIFO opens once both ends are there: the replayer's open lets meterscope start tshark.
        opener, deadline = None, time.monotonic() + WAIT_S
        while opener is None and time.monotonic() < deadline and proc.poll() is None:
            try:
                opener = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
            except OSError:     # ENXIO: meterscope has not opened it yet
                time.sleep(0.01)
        wait_ready(proc, lines)
        replay = subprocess.Popen([sys.executable, REPLAY, src, fifo, "--speed", str(SPEED), "--stall-before",
                                   str(stall_before), "--stall-s", str(STALL_S), "--log", log, "--copy", copy])
        replay.wait(timeout=WAIT_S)
        if opener is not None:
            os.close(opener)
        replay_end = time.monotonic()
        rc = proc.wait(timeout=WAIT_S)
        reader.join()
        err = proc.stderr.read().decode()
        check(rc == 0, "live run exits 0 at the end of input (%d: %s)" % (rc, err.strip()[:300]))
        written = read_log(log)
        events = [(t, json.loads(x)) for t, x in lines if x.startswith("{")]
        framed = [(t, e) for t, e in events if "frame" in e]
        late = [(e["frame"], round(t - written[e["frame"]], 3)) for t, e in framed
                if t - written[e["frame"]] > LATE_S]
        worst = max((t - written[e["frame"]] for t, e in framed), default=0)
        check(len(framed) > 50 and not late,
              "each of the %d events arrived within %.0f s of its frame being written (at worst %.3f s; late: %s)"
              % (len(framed), LATE_S, worst, late[:5]))
        early = sum(1 for t, _ in framed if t < replay_end)
        check(early >= 0.9 * len(framed), "%d of %d events arrived while the replay was still running"
              % (early, len(framed)))
        stalls = [e for _, e in events if e.get("event") == "stall" and e["frame"] >= stall_before]
        check(stalls and stalls[0]["stall_s"] >= STALL_S,
              "the inserted %.0f s silence before frame %d is a stall event on the capture's clock (%s)"
              % (STALL_S, stall_before, stalls[0]["stall_s"] if stalls else None))
        alerts = [e for _, e in events if e.get("event") == "alert" and e["alert"] == "stall"]
        said = [float(m.group(1)) for e in alerts if e["ts_us"] and e["ts_us"] >= middle
                for m in [re.search(r"no message for ([0-9.]+) s", e["message"])] if m]
        check(any(s >= STALL_S for s in said), "the silence raised a stall alert on the capture's clock (%s s)" % said)
        check(any(e["ts_us"] is None and "wall clock" in e["message"] for e in alerts),
              "and, while it lasted, one on the wall clock (no frame for more than --stall 1 s)")
        offline_dir = os.path.join(a.tmp, "offline")
        os.mkdir(offline_dir)
        os.chmod(offline_dir, 0o777)
        os.chmod(copy, 0o644)
        os.rename(copy, os.path.join(offline_dir, "default.pcap"))
        off = subprocess.run(a.command(["--stall", "1", "--format", "json", "-o", report] + prefs_args(truth)
                                       + ["default.pcap"]), cwd=offline_dir, capture_output=True, text=True)
        check(off.returncode == 0, "offline run on the replayed bytes exits 0")
        with open(os.path.join(d, report), "rb") as f1, open(os.path.join(offline_dir, report), "rb") as f2:
            live_rep, off_rep = f1.read(), f2.read()
        check(live_rep == off_rep and b'"transfers"' in live_rep,
              "the live report equals the offline report of the same bytes, byte for byte (%d and %d bytes)"
              % (len(live_rep), len(off_rep)))

        # SIGINT while the replay is slow: the report of what came, nothing left behind.
        proc, lines, reader, fifo, d, tmpdir = live_run(a, truth, src, ["--format", "jsonl"])
        replay = subprocess.Popen([sys.executable, REPLAY, src, fifo, "--speed", "1"], stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + WAIT_S
        while time.monotonic() < deadline and not any('"event":"block"' in x for _, x in lines):
            time.sleep(0.01)
        kids = descendants(proc.pid)
        check(any(open("/proc/%d/comm" % k).read().strip() == "tshark" for k in kids if os.path.exists(
            "/proc/%d/comm" % k)), "a tshark of the live run was reading when the signal came")
        proc.send_signal(signal.SIGINT)
        rc = proc.wait(timeout=WAIT_S)
        reader.join()
        replay.wait(timeout=WAIT_S)
        text = "".join(x for _, x in lines)
        check(rc == 0 and '"meterscope-report"' in text,
              "SIGINT ends the input: exit 0 and the report of what came (%d)" % rc)
        left = [k for k in kids if os.path.exists("/proc/%d" % k)]
        check(not left, "no process of it is left (%s)" % left)
        check(os.listdir(tmpdir) == [], "no temporary left in its TMPDIR (%s)" % os.listdir(tmpdir))

        # Restarts: a part per tshark.
        two = a.copy(os.path.join(committed, "two-meters.pcap"))
        with open(os.path.join(committed, "two-meters.pcap.truth.json")) as f:
            truth2 = json.load(f)
        total = len(frame_times(two))
        with open(two, "rb") as f:
            run = subprocess.run(a.command(["--live", "--live-restart-after", "2000", "--format", "jsonl"] +
                                           prefs_args(truth2) + ["-"]), stdin=f, capture_output=True, text=True,
                                 cwd=a.tmp, timeout=WAIT_S)
        parts = re.findall(r'"file" : "- \(part (\d+): frames (\d+)-(\d+)\)"', run.stdout)
        want = [("1", "1", "4000"), ("2", "4001", "8000"), ("3", "8001", str(total))]
        check(run.returncode == 0 and parts == want, "the report's parts are %s (%s)" % (want, parts))
        evs = [json.loads(x) for x in run.stdout.splitlines() if x.startswith('{"format":"meterscope-live"')]
        frames = [e["frame"] for e in evs if "frame" in e]
        check(frames and min(frames) >= 1 and max(frames) <= total and frames == sorted(frames) and
              max(frames) > 8000, "the events' frame numbers are the capture's, in order, up to %d" % max(frames))
        check(sorted({e["part"] for e in evs}) == [1, 2, 3], "the events name their parts 1 to 3")
    finally:
        a.close()
    return check.summary("live")


if __name__ == "__main__":
    sys.exit(main())
