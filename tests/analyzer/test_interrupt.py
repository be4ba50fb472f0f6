#!/usr/bin/env python3
"""test_interrupt.py METERSCOPE METER_SIM COMMITTED_DIR: a meterscope stopped mid-run, and
a tshark of its that dies, leave nothing behind.

meter-sim writes a capture that tshark takes a while to read (the field-szx1
scenario: 237k frames), given six times with -j 2. Once a tshark of the
analyser is reading it (looked for in /proc, never guessed by a sleep):
- SIGINT, SIGTERM or SIGHUP to meterscope: it exits 130, 143 or 129 and
  names the signal; every process it had started is gone when it exits (the
  ones seen before the signal, each known by its pid and start time) and it
  starts no new one after the signal; its private TMPDIR is empty again (no
  meterscope-* folder, no meterscope-tshark-*.err); the -o file that
  was there before is byte for byte what it was, and nothing is on stdout.
- SIGKILL or SIGSEGV to that tshark (one capture): meterscope says that
  tshark was killed or crashed, with the signal, exits 3 (a tshark problem),
  writes no report, and leaves the same nothing behind.
- standard output closed before the report is written: exit 2, "cannot
  write the report", and no temporary left (SIGPIPE killed it before the
  cleanup)."""
import os
import resource
import signal
import subprocess
import sys
import time

from analyser_run import Analyser
from checks import Checks

check = Checks()
WAIT_S = 120   # only an upper bound for a hang; every wait ends on an event
EARLIER_REPORT = b"an earlier report, which an interrupted run must leave alone\n"


def stat(pid):
    """(parent pid, state, start time) of pid, None once it is gone."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            text = f.read()
    except OSError:
        return None
    rest = text[text.rindex(")") + 2:].split()   # after "pid (comm) "
    return int(rest[1]), rest[0], int(rest[19])


def descendants(pid):
    """{pid: start time} of every process below pid."""
    parents = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            s = stat(int(name))
            if s:
                parents.setdefault(s[0], []).append((int(name), s[2]))
    found, todo = {}, [pid]
    while todo:
        for child, start in parents.get(todo.pop(), []):
            found[child] = start
            todo.append(child)
    return found


def is_tshark_run(pid):
    """A tshark reading a capture (-z), not the setup's -G questions."""
    try:
        with open("/proc/%d/cmdline" % pid, "rb") as f:
            argv = f.read().split(b"\0")
    except OSError:
        return False
    return os.path.basename(argv[0]) == b"tshark" and b"-z" in argv


def tshark_runs(pid):
    return {c: s for c, s in descendants(pid).items() if is_tshark_run(c)}


def alive(pid, start):
    s = stat(pid)
    return s is not None and s[2] == start and s[1] != "Z"


def no_core_dumps():
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


class Run:
    """meterscope started on captures, with a private TMPDIR and an -o file
    that already holds a report."""

    def __init__(self, a, name, captures, jobs):
        self.tmpdir = os.path.join(a.tmp, "tmp-" + name)
        os.mkdir(self.tmpdir)
        os.chmod(self.tmpdir, 0o777)
        self.report = os.path.join(a.tmp, "report-%s.txt" % name)
        with open(self.report, "wb") as f:
            f.write(EARLIER_REPORT)
        os.chmod(self.report, 0o666)
        args = ["--no-progress", "-j", str(jobs), "-o", self.report] + captures
        self.proc = subprocess.Popen(a.command(args, env=["TMPDIR=" + self.tmpdir]), cwd=a.tmp,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, preexec_fn=no_core_dumps)
        self.seen = {}

    def wait_for_tshark(self, count):
        """The analyser's processes once count tshark of it read captures
        (with -j count every thread is then busy for a while, so that none
        starts at the moment of the signal); {} if it ended first."""
        deadline = time.monotonic() + WAIT_S
        while self.proc.poll() is None and time.monotonic() < deadline:
            if len(tshark_runs(self.proc.pid)) >= count:
                self.seen = descendants(self.proc.pid)
                return self.seen
            time.sleep(0.005)
        return {}

    def wait_for_exit(self):
        """Waits for meterscope, noting every tshark it starts meanwhile;
        returns those not seen before."""
        started = {}
        deadline = time.monotonic() + WAIT_S
        while self.proc.poll() is None and time.monotonic() < deadline:
            for c, s in tshark_runs(self.proc.pid).items():
                if self.seen.get(c) != s:
                    started[c] = s
            time.sleep(0.005)
        if self.proc.poll() is None:
            self.proc.kill()
        self.out, self.err = self.proc.communicate()
        return started

    def leftovers(self, what):
        """Checks what must be gone; kills what survived, for the next runs."""
        survivors = [p for p, s in self.seen.items() if alive(p, s)]
        check(self.seen and not survivors, "%s: none of the %d processes it had started survives it (left: %s)"
              % (what, len(self.seen), survivors))
        for p in survivors:
            os.kill(p, signal.SIGKILL)
        left = sorted(os.listdir(self.tmpdir))
        check(left == [], "%s: no temporary left in its TMPDIR (%s)" % (what, left))
        with open(self.report, "rb") as f:
            check(f.read() == EARLIER_REPORT, "%s: the -o file is untouched" % what)
        check(self.out == b"", "%s: nothing on stdout" % what)


def main():
    binary, sim, committed = sys.argv[1:4]
    a = Analyser(binary)
    try:
        big = os.path.join(a.tmp, "long.pcap")
        subprocess.run([sim, "--scenario", "field-szx1", "--quiet", "--output", big], check=True, timeout=300)
        os.chmod(big, 0o644)

        for sig, code in ((signal.SIGINT, 130), (signal.SIGTERM, 143), (signal.SIGHUP, 129)):
            what = "%s to meterscope" % sig.name
            run = Run(a, sig.name, [big] * 6, 2)
            seen = run.wait_for_tshark(2)
            check(seen, "%s: two tshark of meterscope were found reading captures" % what)
            if seen:
                run.proc.send_signal(sig)
            started = run.wait_for_exit()
            err = run.err.decode(errors="replace")
            check(run.proc.returncode == code, "%s: exit %d (got %s; stderr: %s)"
                  % (what, code, run.proc.returncode, err.strip()[:300]))
            check("stopped by %s" % sig.name in err, "%s: says it was stopped by it" % what)
            check(not started, "%s: no tshark started after it (%s)" % (what, sorted(started)))
            run.leftovers(what)

        for sig, says in ((signal.SIGKILL, "was killed (signal 9"), (signal.SIGSEGV, "crashed (signal ")):
            what = "%s to meterscope's tshark" % sig.name
            run = Run(a, "child-" + sig.name, [big], 1)
            run.wait_for_tshark(1)
            tshark = sorted(tshark_runs(run.proc.pid))
            check(tshark, "%s: a tshark of meterscope was found reading the capture" % what)
            for p in tshark:
                os.kill(p, sig)
            run.wait_for_exit()
            err = run.err.decode(errors="replace")
            check(run.proc.returncode == 3, "%s: exit 3, a tshark problem (got %s)" % (what, run.proc.returncode))
            check(err.startswith("meterscope: ") and says in err and "long.pcap" in err,
                  "%s: says '%s' for the capture (stderr: %s)" % (what, says, err.strip()[:300]))
            run.leftovers(what)

        # Standard output closed before the report comes (a reader that
        # quit): a write error, not a death by SIGPIPE that skips the cleanup.
        what = "a closed standard output"
        tmpdir = os.path.join(a.tmp, "tmp-closed")
        os.mkdir(tmpdir)
        os.chmod(tmpdir, 0o777)
        small = a.copy(os.path.join(committed, "default.pcap"))
        proc = subprocess.Popen(a.command(["--no-progress", "-O", "6lowpan.context1:2001:db8:1::/64", small],
                                          env=["TMPDIR=" + tmpdir]),
                                cwd=a.tmp, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        proc.stdout.close()
        err = proc.stderr.read().decode(errors="replace")
        proc.wait(timeout=WAIT_S)
        check(proc.returncode == 2 and "cannot write the report" in err,
              "%s: exit 2, 'cannot write the report' (got %s; stderr: %s)" % (what, proc.returncode, err.strip()))
        left = sorted(os.listdir(tmpdir))
        check(left == [], "%s: no temporary left in its TMPDIR (%s)" % (what, left))
    finally:
        a.close()
    return check.summary("analyzer.interrupt")


if __name__ == "__main__":
    sys.exit(main())
