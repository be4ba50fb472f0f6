#!/usr/bin/env python3
"""bench_live_memory.py BUILD_DIR [CAPTURE [RESTART_FRAMES]]: the memory of a live run over a
long capture (a benchmark, not a test). meter-sim's field-szx1 scenario
with 4 meters and 10 background nodes (2.2 hours, 1.19 million frames) is
piped into `meterscope --live -` as fast as tshark takes it; the resident
memory of meterscope and of its tshark is sampled from /proc every 0.2 s.
Printed: each one's RSS when a quarter, half, three quarters and all of the
frames were in, its peak, and the ratios of the live tshark's peak to the
offline run's tshark peak (the baseline, measured in the same invocation
with the same preferences) and of its growth per frame, from which a
24-hour run is extrapolated; then the same with --live-restart-after
RESTART_FRAMES (default 200000), whose tshark's memory must stay flat."""
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
AS_USER = os.path.join(HERE, "..", "as-user")
PREFS = ["-O", "6lowpan.context1:2001:db8:1::/64"]


def rss_kb(pid):
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def children(pid):
    out = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open("/proc/%s/stat" % name) as f:
                    if int(f.read().rsplit(")", 1)[1].split()[1]) == pid:
                        out.append(int(name))
            except OSError:
                pass
    return out


def is_run(pid):
    """A tshark reading the capture (-z), not the setup's -G questions."""
    try:
        with open("/proc/%d/cmdline" % pid, "rb") as f:
            return b"-z" in f.read().split(b"\0")
    except OSError:
        return False


def sample(proc, fed, total, marks):
    """{mark: (analyser kB, tshark kB)} at each share of the input fed, and the peaks."""
    peaks, at = [0, 0], {}
    tshark = None
    while proc.poll() is None:
        if tshark is None or not rss_kb(tshark):
            kids = [k for k in children(proc.pid) if is_run(k)]
            tshark = kids[0] if kids else None
        a, t = rss_kb(proc.pid), rss_kb(tshark) if tshark else 0
        peaks = [max(peaks[0], a), max(peaks[1], t)]
        for m in marks:
            if m not in at and fed[0] >= m * total:
                at[m] = (a, t)
        time.sleep(0.2)
    return at, peaks


MARKS = [0.25, 0.5, 0.75, 1.0]


def live_run(command, cap, total):
    """Feeds cap into meterscope --live - as fast as it reads; its samples."""
    live = subprocess.Popen(command + ["--live", "-o", os.devnull, "-"], stdin=subprocess.PIPE,
                            stdout=subprocess.DEVNULL)
    fed = [0]

    def feed():
        with open(cap, "rb") as f:
            while True:
                chunk = f.read(1 << 16)
                if not chunk:
                    break
                live.stdin.write(chunk)
                fed[0] += len(chunk)
        live.stdin.close()
    t = threading.Thread(target=feed)
    t.start()
    result = sample(live, fed, total, MARKS)
    t.join()
    return result


def main():
    build = os.path.abspath(sys.argv[1])
    tmp = tempfile.mkdtemp(prefix="meterscope-bench-")
    os.chmod(tmp, 0o777)
    try:
        cap = sys.argv[2] if len(sys.argv) > 2 else os.path.join(tmp, "sleepy.pcap")
        if len(sys.argv) <= 2:
            subprocess.run([os.path.join(build, "captures", "meter-sim"), "--scenario", "field-szx1", "--seed", "1",
                            "--meters", "4", "--background", "10", "--quiet", "--output", cap], check=True)
        exe, plugin = os.path.join(tmp, "meterscope"), os.path.join(tmp, "meterscope.so")
        shutil.copy(os.path.join(build, "analyzer", "meterscope"), exe)
        shutil.copy(os.path.join(build, "plugin", "meterscope.so"), plugin)
        for f in (exe, plugin, cap):
            os.chmod(f, 0o755)
        env = ["HOME=" + tmp]
        base = [AS_USER] + env + [exe, "--plugin", plugin] + PREFS
        # The offline run: the baseline.
        off = subprocess.Popen(base + ["--no-progress", "-o", os.devnull, cap], stdout=subprocess.DEVNULL)
        _, off_peaks = sample(off, [0], 1, [])
        total = os.path.getsize(cap)
        frames = int(subprocess.run(["capinfos", "-c", "-M", "-r", "-T", cap], capture_output=True, text=True)
                     .stdout.split()[-1])
        restart = sys.argv[3] if len(sys.argv) > 3 else "200000"
        print("capture: %s (%d bytes, %d frames)" % (cap, total, frames))
        print("offline run's peak: meterscope %d kB, tshark %d kB" % tuple(off_peaks))
        for extra in ([], ["--live-restart-after", restart]):
            at, peaks = live_run(base + extra, cap, total)
            print("\nmeterscope --live %s" % " ".join(extra))
            print("share of input   meterscope kB   its tshark kB")
            for m in MARKS:
                a, ts = at.get(m, (0, 0))
                print("%13.0f%%   %13d   %13d" % (m * 100, a, ts))
            print("peak             %13d   %13d" % tuple(peaks))
            print("ratio live/offline tshark peak: %.3f" % (peaks[1] / max(1, off_peaks[1])))
            q, f = at.get(0.25, (0, 0))[1], at.get(1.0, (0, 0))[1]
            if q and f:
                print("tshark growth from 25%% to 100%% of the input: %d kB, %.0f bytes per frame"
                      % (f - q, (f - q) * 1024 / (0.75 * frames)))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
