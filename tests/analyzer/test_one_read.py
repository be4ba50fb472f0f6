#!/usr/bin/env python3
"""test_one_read.py SANDBOX PLUGIN METERSCOPE METER_SIM [SHARED_CAPTURES]:
the analyser reads each capture once, whatever its stamps mark.

For every committed capture, every real one in SHARED_CAPTURES (the
OpenThread and ETSI folders) and generated captures of every stamp mode
(meter-sim --timestamp end, start, host):
- an offline run starts exactly one tshark: the analyser is given a tshark
  that logs each start before it runs the real one, and nothing else
  (no -G listing, no second pass) may start another;
- where the plugin read the stamps as marking frame starts, the report is
  the one a pass told so from the first frame gives
  (-O meter.ota.timestamps:start), byte for byte;
- where a message came before the ACKs told start (the scenarios below
  whose first request precedes every ACK that tells), what later passes
  show of each frame (tshark -2 -V) is that pass's too: the records of the
  frames read before the plugin knew follow it.
The truth of "start" is the generator's --timestamp, not the plugin's
reading: every generated capture must be read as the mode it was made in.
"""
import glob
import json
import os
import subprocess
import sys

from analyser_run import Analyser, prefs_args
from checks import Checks

# (scenario, link type): the runs of analyzer.timestamp_modes, seeds 41 on.
RUNS = [("default", "195"), ("multihop", "230"), ("secure", "283"), ("busy", "zep"), ("router", "195"),
        ("openthread", "283"), ("two-meters", "230"), ("bernoulli", "zep"), ("renegotiate", "195"),
        ("repeat", "283"), ("slow-backhaul", "zep"), ("slow-lossy", "230")]
# Their first request comes before any ACK that tells start: later passes
# show frames the plugin read before it knew.
TOLD_LATE = {"renegotiate", "repeat", "two-meters"}
# End and host stamps: a few scenarios, the host one whose first frame-ACK
# gap fits start by chance (renegotiate, seed 49).
OTHER_MODES = [("default", "195", "end"), ("two-meters", "230", "end"), ("renegotiate", "195", "host"),
               ("busy", "zep", "host")]

check = Checks()

WRAPPER = """#!/bin/sh
echo "$*" >>"%s"
exec "%s" "$@"
"""


def generated(sim, tmp):
    """(path, args, stamp mode, scenario) of each generated capture."""
    runs = [(s, link, "start", 41 + i) for i, (s, link) in enumerate(RUNS)]
    runs += [(s, link, mode, 41 + [r[0] for r in RUNS].index(s)) for s, link, mode in OTHER_MODES]
    for scenario, link, mode, seed in runs:
        cap = os.path.join(tmp, "%s-%s.pcap" % (scenario, mode))
        subprocess.run([sim, "--scenario", scenario, "--seed", str(seed), "--link", link, "--timestamp", mode,
                        "--quiet", "--output", cap], check=True)
        os.chmod(cap, 0o644)
        with open(cap + ".truth.json") as f:
            truth = json.load(f)
        args = prefs_args(truth) + (["--key", truth["network_key"]] if truth.get("security") else [])
        yield cap, args, mode, scenario, truth


def committed(root):
    for cap in sorted(glob.glob(os.path.join(root, "captures", "committed", "*.pcap"))):
        with open(cap + ".truth.json") as f:
            truth = json.load(f)
        yield cap, prefs_args(truth) + (["--key", truth["network_key"]] if truth.get("security") else [])


def real(shared):
    ot = os.path.join(shared, "openthread")
    if os.path.isdir(ot):
        with open(os.path.join(ot, "ground-truth.json")) as f:
            opts = json.load(f)["tshark_opts"]
        args = [a for flag, value in zip(opts[::2], opts[1::2]) if flag == "-o" for a in ("-O", value)]
        for cap in sorted(glob.glob(os.path.join(ot, "*.pcap"))):
            yield cap, args
    for cap in sorted(glob.glob(os.path.join(shared, "etsi-coap-block", "*.pcap"))):
        yield cap, []


class Runs:
    """The analyser through the logging tshark; each run's tshark starts."""

    def __init__(self, analyser):
        self.a = analyser
        self.log = os.path.join(analyser.tmp, "tshark-starts.log")
        self.wrapper = os.path.join(analyser.tmp, "tshark")
        tshark = subprocess.run(["sh", "-c", "command -v tshark"], capture_output=True, text=True).stdout.strip()
        with open(self.wrapper, "w") as f:
            f.write(WRAPPER % (self.log, os.environ.get("TSHARK", tshark)))
        os.chmod(self.wrapper, 0o755)
        open(self.log, "w").close()
        os.chmod(self.log, 0o666)

    def run(self, args):
        """(result, tshark command lines it started)."""
        with open(self.log) as f:
            before = len(f.readlines())
        res = self.a.run(["--tshark", self.wrapper, "--no-progress"] + args)
        with open(self.log) as f:
            started = f.readlines()[before:]
        return res, started


def report(res):
    return "exit %d\n%s--- stderr\n%s" % (res.returncode, res.stdout, res.stderr)


def later_passes(sandbox, plugin, cap, truth, mode):
    """tshark -2 -V of the meter protocols, the stamps read or given."""
    cmd = [sandbox, plugin, "-n", "-2", "-r", cap, "-o", "meter.ota.timestamps:" + mode]
    for pref in truth.get("wireshark_prefs", []):
        cmd += ["-o", pref]
    return subprocess.run(cmd + ["-V", "-O", "meter,meter-fw"], capture_output=True, text=True).stdout


def main():
    sandbox, plugin, binary, sim = sys.argv[1:5]
    shared = sys.argv[5] if len(sys.argv) > 5 else None
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
    a = Analyser(binary)
    runs = Runs(a)
    try:
        captures = [(c, args, None, None, None) for c, args in committed(root)]
        if shared:
            captures += [(c, args, None, None, None) for c, args in real(shared)]
        captures += list(generated(sim, a.tmp))
        for cap, args, mode, scenario, truth in captures:
            name = os.path.basename(cap)
            copy = a.copy(cap) if not cap.startswith(a.tmp) else cap
            res, started = runs.run(args + ["--format", "json", os.path.basename(copy)])
            check(len(started) == 1 and res.returncode in (0, 2),
                  "%s: exit %d, %d tshark started (one wanted)%s" % (
                      name, res.returncode, len(started),
                      "".join("\n      " + s for s in started) if len(started) != 1 else ""))
            if res.returncode != 0:
                continue
            mark = json.loads(res.stdout)["captures"][0]["timestamps"]["mark"]
            if mode:
                check(mark == mode, "%s: stamps read as %s, made as %s" % (name, mark, mode))
            if mark != "start":
                continue
            told, started = runs.run(args + ["--format", "json", "-O", "meter.ota.timestamps:start",
                                             os.path.basename(copy)])
            check(report(res) == report(told) and len(started) == 1,
                  "%s: the report is the one of a pass told start from the first frame" % name)
            if scenario in TOLD_LATE:
                check(later_passes(sandbox, plugin, copy, truth, "auto") ==
                      later_passes(sandbox, plugin, copy, truth, "start"),
                      "%s: tshark -2 -V shows every frame as a pass told start from the first frame" % name)
    finally:
        a.close()
    return check.summary("one read")


if __name__ == "__main__":
    sys.exit(main())
