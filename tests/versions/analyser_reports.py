#!/usr/bin/env python3
"""analyser_reports.py METERSCOPE OUT_DIR: what the analyser says about every
committed capture and every real capture in ../shared/captures-real (exit
status, messages and JSON report), one OUT_DIR/NAME.out each, for
compare_reports.py to hold the Wireshark versions against each other. Each
capture is given by its bare name, so the output names it the same way
wherever it was made. A capture without transfers exits 2 with a message;
only usage and tshark errors (1, 3) fail here."""
import glob
import json
import os
import sys

from analyser_run import Analyser, prefs_args

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")


def committed():
    for cap in sorted(glob.glob(os.path.join(ROOT, "captures", "committed", "*.pcap"))):
        with open(cap + ".truth.json") as f:
            truth = json.load(f)
        args = prefs_args(truth)
        if truth.get("security"):
            args += ["--key", truth["network_key"]]
        yield cap, args


def real():
    ot = os.path.join(ROOT, "..", "shared", "captures-real", "openthread")
    if os.path.isdir(ot):
        with open(os.path.join(ot, "ground-truth.json")) as f:
            opts = json.load(f)["tshark_opts"]
        # The analyser takes tshark's -o as -O; -d (decode as) has no
        # counterpart and the transfers do not need it.
        args = []
        for flag, value in zip(opts[::2], opts[1::2]):
            if flag == "-o":
                args += ["-O", value]
        for cap in sorted(glob.glob(os.path.join(ot, "*.pcap"))):
            yield cap, args
    for cap in sorted(glob.glob(os.path.join(ROOT, "..", "shared", "captures-real", "etsi-coap-block", "*.pcap"))):
        yield cap, []


def main():
    binary, out_dir = sys.argv[1:3]
    os.makedirs(out_dir, exist_ok=True)
    a = Analyser(binary)
    failures = 0
    try:
        for cap, args in list(committed()) + list(real()):
            name = os.path.basename(cap)
            a.copy(cap)
            res = a.run(args + ["--no-progress", "--format", "json", name])
            if res.returncode not in (0, 2):
                print("FAIL  %s: meterscope exited %d: %s" % (name, res.returncode, res.stderr.strip()))
                failures += 1
            with open(os.path.join(out_dir, name + ".out"), "w") as f:
                f.write("exit %d\n--- stderr\n%s--- report\n%s" % (res.returncode, res.stderr, res.stdout))
    finally:
        a.close()
    print("analyser_reports: %d reports in %s, %d failed" % (len(os.listdir(out_dir)), out_dir, failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
