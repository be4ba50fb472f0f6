#!/usr/bin/env python3
"""test_compressed.py METERSCOPE COMMITTED_DIR: a compressed capture gets what
tshark makes of it, not "not a pcap or pcapng capture".

Committed captures are compressed here, with gzip, bzip2 and xz (Python's own
modules) and with zstd and lz4 when their tools are installed. tshark itself
is asked whether it reads each compressed file (the harness's knowledge, not
the analyser's):
- it does: the analyser's JSON report and table of it are byte for byte those
  of the plain capture, the file's name aside, and so is the JSON with -Y
  (tshark then reads the file twice and seeks in it);
- it does not: exit 2, a message that names the compression and says to
  decompress the file, no report.
A gzip file cut short is a truncated capture like any other: exit 2, "cut
short", and the partial report of what was read."""
import bz2
import gzip
import json
import lzma
import os
import shutil
import subprocess
import sys

from analyser_run import Analyser, prefs_args
from checks import Checks

check = Checks()
FILTER = "meter.frag.incomplete"
REPORTS = {"json": ["--format", "json"], "table": [], "json -Y": ["--format", "json", "-Y", FILTER]}
# Each sample with the reports compared for it.
SAMPLES = (("default.pcap", ("json", "table", "json -Y")), ("multihop.pcap", ("json",)))
# Stock tools: not under the sanitizer build's preloaded runtimes.
PLAIN_ENV = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}


def by_module(module):
    def compress(src, dst):
        with open(src, "rb") as f, module.open(dst, "wb") as g:
            g.write(f.read())
    return compress


def by_tool(tool):
    def compress(src, dst):
        with open(dst, "wb") as g:
            subprocess.run([tool, "-c", src], stdout=g, check=True, timeout=60, env=PLAIN_ENV)
    return compress


def compressors():
    found = [("gzip", ".gz", by_module(gzip)), ("bzip2", ".bz2", by_module(bz2)), ("xz", ".xz", by_module(lzma))]
    for tool, ext in (("zstd", ".zst"), ("lz4", ".lz4")):
        # Not a skip: scripts/install-deps.sh --tests installs both.
        check(shutil.which(tool), "%s is installed (scripts/install-deps.sh --tests installs it)" % tool)
        if shutil.which(tool):
            found.append((tool, ext, by_tool(tool)))
    return found


def tshark_reads(path):
    res = subprocess.run(["tshark", "-n", "-q", "-r", path, "-c", "1"], capture_output=True, timeout=120,
                         env=PLAIN_ENV)
    return res.returncode == 0


def main():
    binary, committed = sys.argv[1:3]
    a = Analyser(binary)
    try:
        for sample, reports in SAMPLES:
            plain = a.copy(os.path.join(committed, sample))
            with open(os.path.join(committed, sample + ".truth.json")) as f:
                prefs = prefs_args(json.load(f)) + ["--no-progress"]
            want = {how: a.run(prefs + REPORTS[how] + [sample]) for how in reports}
            check(all(r.returncode == 0 and r.stdout for r in want.values()),
                  "%s: the plain capture is reported" % sample)
            for name, ext, compress in compressors():
                packed = os.path.join(a.tmp, sample + ext)
                compress(plain, packed)
                os.chmod(packed, 0o644)
                base = os.path.basename(packed)
                if tshark_reads(packed):
                    for how in reports:
                        res = a.run(prefs + REPORTS[how] + [base])
                        same = res.stdout.replace(base, sample) == want[how].stdout
                        check(res.returncode == 0 and same,
                              "%s, %s (tshark reads it): the %s report is the plain capture's (exit %d, %s)"
                              % (sample, name, how, res.returncode, res.stderr.strip()[:200]))
                else:
                    res = a.run(prefs + [base])
                    check(res.returncode == 2 and res.stdout == "" and "%s-compressed" % name in res.stderr and
                          "decompress it first (%s -d)" % name in res.stderr,
                          "%s, %s (tshark does not read it): exit 2, says it is %s-compressed and to decompress "
                          "it (exit %d, %s)" % (sample, name, name, res.returncode, res.stderr.strip()[:300]))

        # Cut inside the compressed stream, after the first records.
        with open(os.path.join(committed, "default.pcap"), "rb") as f:
            data = gzip.compress(f.read())
        cut = os.path.join(a.tmp, "cut.pcap.gz")
        with open(cut, "wb") as f:
            f.write(data[:len(data) // 2])
        os.chmod(cut, 0o644)
        res = a.run(["--no-progress", "--format", "json", "cut.pcap.gz"])
        frames = json.loads(res.stdout)["captures"][0]["frames"] if res.stdout else 0
        check(res.returncode == 2 and "cut short" in res.stderr and frames > 0,
              "a gzip capture cut short: exit 2, 'cut short', the partial report (%d frames; exit %d, %s)"
              % (frames, res.returncode, res.stderr.strip()[:200]))
    finally:
        a.close()
    return check.summary("analyzer.compressed")


if __name__ == "__main__":
    sys.exit(main())
