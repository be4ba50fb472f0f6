#!/usr/bin/env python3
"""test_exit_codes.py METERSCOPE COMMITTED_DIR: the analyser's exit codes
and messages (0 report, 1 usage, 2 input, 3 tshark or plugin) on bad
input, each with a clear `meterscope:` message on stderr and, for a
truncated capture, the partial report still on stdout."""
import importlib.util
import json
import os
import re
import shutil
import struct
import subprocess
import sys

from analyser_run import Analyser

CTX = ["-O", "6lowpan.context1:2001:db8:1::/64", "--no-progress"]
failures = 0

# Every numeric option: its range as docs/analyser.md gives it, whether it
# takes whole numbers only, and the unit its message names.
NUMERIC = [("--stall", 1, 86400, True, "seconds"),
           ("--jobs", 1, 1024, True, "captures at once"),
           ("--flash-us-per-byte", 0, 10000, False, "microseconds per byte")]
# Values no numeric option takes: not numbers, not finite, beyond any
# range, trailing letters, empty, beyond 64 bits.
BAD_VALUES = ["nan", "NaN", "inf", "-inf", "Infinity", "-1", "1e308", "1e999", "", " ", "12abc", "5 ", " 5",
              "\t7", "7\n", "99999999999999999999", "-99999999999999999999", "0x", "--", "1,5"]


def shown(value):
    """A value as the analyser's message quotes it: control characters escaped."""
    return value.replace("\t", "\\t").replace("\n", "\\n")


def check(ok, what):
    global failures
    print("%s  %s" % ("ok   " if ok else "FAIL ", what))
    failures += not ok


def expect(res, code, stderr_has, what):
    check(res.returncode == code and stderr_has in res.stderr and
          all(line.startswith("meterscope: ") for line in res.stderr.splitlines()),
          "%s: exit %d (got %d), says '%s' (stderr: %s)" % (what, code, res.returncode, stderr_has,
                                                           res.stderr.strip()[:200]))


def hostile_path_capture(path, uri_path):
    """A gateway-side capture of a two-block download whose Uri-Path holds
    what the capture's sender put there (a tab, a line break), built with
    tests/plugin/malformed_pcap.py's CoAP, UDP and IPv6 writers."""
    spec = importlib.util.spec_from_file_location(
        "malformed_pcap", os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "plugin", "malformed_pcap.py"))
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
        for num in range(2):
            tok = struct.pack(">H", 0x100 + num)
            opts = [(11, seg.encode()) for seg in uri_path.split("/")] + [(23, bytes([num << 4 | 0x02]))]
            last = 0x0a if num == 0 else 0x02      # SZX 2 (64 bytes), M set on the first block
            msgs = [(m.coap(0, 1, 0x100 + num, tok, opts), m.METER, m.GATEWAY),
                    (m.coap(2, 69, 0x100 + num, tok, [(12, bytes([42])), (23, bytes([num << 4 | last]))],
                            b"\x5a" * 64), m.GATEWAY, m.METER)]
            for i, (msg, src, dst) in enumerate(msgs):
                pkt = m.udp_ipv6(src, dst, msg)
                f.write(struct.pack("<IIII", 1772359200 + 2 * num + i, 0, len(pkt), len(pkt)) + pkt)
    os.chmod(path, 0o644)


def fmt(v):
    return "%d" % v if v == int(v) else repr(v)


def numeric_options(a, default):
    """Each numeric option refused with every bad value (and just outside
    its range, and a fraction where a whole number is wanted): exit 1, a
    message naming the option, the value and the range. Both ends of each
    range accepted, the value reaching what it sets."""
    for name, lo, hi, whole, unit in NUMERIC:
        rng = "%s%s to %s %s" % ("a whole number from " if whole else "", fmt(lo), fmt(hi), unit)
        bad = BAD_VALUES + [fmt(lo - 1 if whole else lo - 0.001), fmt(hi + 1 if whole else hi + 0.5)]
        if whole:
            bad += ["1.5", "2e3", "1024.0"]
        for value in bad:
            res = a.run(CTX + ["%s=%s" % (name, value), default])
            expect(res, 1, "%s: '%s' is " % (name, shown(value)),
                   "%s=%r refused" % (name, value))
            check(rng in res.stderr and res.stdout == "",
                  "%s=%r: the message gives the range '%s'" % (name, value, rng))
        # The option repeated: a bad value anywhere is refused.
        expect(a.run(CTX + [name, fmt(lo), name, "nan", default]), 1, "'nan'", "%s good then nan" % name)
        expect(a.run(CTX + [name, "nan", name, fmt(lo), default]), 1, "'nan'", "%s nan then good" % name)
    expect(a.run(CTX + ["-j", "0", default]), 1, "--jobs: '0' is out of range", "-j 0 (the short form)")
    expect(a.run(CTX + [default, "--stall"]), 1, "Missing argument for --stall", "--stall without a value")

    for value in (1, 86400):
        res = a.run(CTX + ["--stall", str(value), "--format", "json", default])
        check(res.returncode == 0 and json.loads(res.stdout)["captures"][0]["transfers"],
              "--stall %d accepted (exit %d)" % (value, res.returncode))
    for value in (1, 1024):
        expect(a.run(CTX + ["--jobs", str(value), default]), 0, "", "--jobs %d accepted" % value)
    for value in ("0", "10000", "0.5", "1e2"):
        res = a.run(CTX + ["--flash-us-per-byte", value, "--format", "json", default])
        rec = json.loads(res.stdout)["captures"][0]["recommendation"] if res.returncode == 0 else None
        check(rec is not None and abs(rec["flash_s_per_byte"] - float(value) * 1e-6) < 1e-12 and
              all(p["rate_Bps"] > 0 for p in rec["predictions"]),
              "--flash-us-per-byte %s accepted, reaches the model, every rate positive (exit %d)"
              % (value, res.returncode))


def main():
    binary, committed = sys.argv[1:3]
    a = Analyser(binary)
    try:
        default = a.copy(os.path.join(committed, "default.pcap"))
        secure = a.copy(os.path.join(committed, "secure.pcap"))
        with open(default, "rb") as f:
            data = f.read()
        trunc = os.path.join(a.tmp, "truncated.pcap")
        with open(trunc, "wb") as f:
            f.write(data[:len(data) // 2 + 7])          # cut inside a record
        empty = os.path.join(a.tmp, "empty.pcap")
        open(empty, "wb").close()
        text = os.path.join(a.tmp, "notes.pcap")
        with open(text, "w") as f:
            f.write("this is not a capture\n")
        for p in (trunc, empty, text):
            os.chmod(p, 0o644)

        res = a.run(CTX + [default])
        expect(res, 0, "", "a good capture")
        check("Where the time went" in res.stdout and "recommended: SZX" in res.stdout,
              "the table has the time split and the recommendation")
        expect(a.run(CTX + ["--format", "xml", default]), 1, "unknown format", "unknown --format")
        expect(a.run(CTX + ["--no-such-option", default]), 1, "no-such-option", "unknown option")
        expect(a.run(CTX), 1, "no capture", "no capture given")
        expect(a.run(CTX + ["--key", "123", default]), 1, "32 hex digits", "a malformed key")
        numeric_options(a, default)
        # A Uri-Path holding a tab and a line break: one record still, the
        # path shown with escapes (the plugin printed them raw, the analyser
        # refused the capture as the plugin's unexpected output, exit 3).
        hostile = os.path.join(a.tmp, "hostile-path.pcap")
        hostile_path_capture(hostile, "firmware/a\tb\nc.img")
        res = a.run(["--no-progress", "--format", "json", hostile])
        transfers = json.loads(res.stdout)["captures"][0]["transfers"] if res.returncode == 0 else []
        check(len(transfers) == 1 and transfers[0]["path"] == "/firmware/a\\tb\\nc.img" and
              transfers[0]["blocks"] == 2,
              "a Uri-Path with a tab and a line break: exit 0, one transfer, the path escaped (exit %d, %s)"
              % (res.returncode, res.stderr.strip()[:200]))
        res = a.run(CTX + ["--stall", "5", "--format", "json", default])
        stalls5 = sum(t["stalls"] for t in json.loads(res.stdout)["captures"][0]["transfers"]) if res.stdout else -1
        res = a.run(CTX + ["--stall", "60", "--format", "json", default])
        stalls60 = sum(t["stalls"] for t in json.loads(res.stdout)["captures"][0]["transfers"]) if res.stdout else -1
        check(stalls5 > stalls60 >= 0, "--stall reaches the plugin (%d stalls over 5 s, %d over 60 s)"
              % (stalls5, stalls60))
        expect(a.run(CTX + ["-Y", "not a filter ===", default]), 1, "invalid", "a bad display filter")
        expect(a.run(CTX + [os.path.join(a.tmp, "missing.pcap")]), 2, "No such file", "a missing file")
        expect(a.run(CTX + [empty]), 2, "empty file", "a zero-byte file")
        expect(a.run(CTX + [text]), 2, "not a pcap or pcapng", "a text file")
        res = a.run(CTX + ["--format", "json", trunc])
        expect(res, 2, "cut short", "a truncated capture")
        check(res.stdout and json.loads(res.stdout)["captures"][0]["frames"] > 0,
              "a truncated capture still gets its partial report")
        res = a.run(CTX + [default, empty])
        expect(res, 2, "empty file", "one bad capture among good ones")
        check("default.pcap" in res.stdout, "the good capture is still reported")
        expect(a.run(CTX + [secure]), 2, "--key", "an encrypted capture without its key")
        res = a.run(CTX + ["--key", "00112233445566778899aabbccddeeff", secure])
        expect(res, 0, "", "an encrypted capture with its key")
        expect(a.run(CTX + ["--key", "ffeeddccbbaa99887766554433221100", secure]), 2, "is --key the network key",
               "an encrypted capture with the wrong key")
        expect(a.run(CTX + ["--tshark", "/nonexistent/tshark", default]), 3, "tshark not found", "no tshark")
        expect(a.run(CTX + ["--plugin", "/nonexistent/meterscope.so", default], plugin=False), 3,
               "not installed", "no plugin")
        broken = os.path.join(a.tmp, "broken-meterscope.so")
        with open(broken, "w") as f:
            f.write("not a shared object\n")
        os.chmod(broken, 0o644)
        expect(a.run(CTX + ["--plugin", broken, default], plugin=False), 3,
               "not a Wireshark plugin", "a plugin that is not a shared object")
        expect(a.run(CTX + ["--plugin=/etc/passwd", default], plugin=False), 3,
               "not a Wireshark plugin", "--plugin=/etc/passwd")
        # A shared object tshark cannot load (this program, an executable):
        # the analyser's own -o meter.* preferences are refused first, and
        # that must not pass for a usage error.
        expect(a.run(CTX + ["--plugin", a.exe, default], plugin=False), 3,
               "did not load the meterscope plugin", "a shared object tshark cannot load as a plugin")
        # With a personal plugin installed tshark loads it as well, after the
        # chosen one: a chosen one that does not load must not be replaced by
        # it in silence (it was, exit 0).
        version = ".".join(re.search(r"(\d+)\.(\d+)\.", subprocess.run(
            ["tshark", "--version"], capture_output=True, text=True).stdout).groups())
        personal = os.path.join(a.home, ".local", "lib", "wireshark", "plugins", version, "epan")
        os.makedirs(personal)
        shutil.copy(a.plugin, personal)
        for d, _, names in os.walk(os.path.join(a.home, ".local")):
            os.chmod(d, 0o755)
            for n in names:
                os.chmod(os.path.join(d, n), 0o644)
        expect(a.run(CTX + ["--plugin=/etc/passwd", default], plugin=False), 3,
               "not a Wireshark plugin", "--plugin=/etc/passwd with a personal plugin installed")
        expect(a.run(CTX + ["--plugin", a.exe, default], plugin=False), 3,
               "did not load the meterscope plugin", "a plugin tshark cannot load, with a personal plugin installed")
        expect(a.run(CTX + [default]), 0, "", "a plugin that loads, with a personal plugin installed")
        shutil.rmtree(os.path.join(a.home, ".local"))
        if os.geteuid() == 0:
            # Root's tshark loads the global plugin folder only: a plugin that is
            # not the installed one is refused with what to do.
            other = os.path.join(a.tmp, "other-meterscope.so")
            with open(a.plugin, "rb") as f, open(other, "wb") as g:
                g.write(f.read() + b"\0")
            res = subprocess.run([a.exe, "--plugin", other] + CTX + [default], capture_output=True, text=True)
            expect(res, 3, "running as root", "root with a plugin tshark would ignore")
        res = a.run(CTX + ["--meter", "2001:db8:1:0:212:4b00:1a0:c000", "--format", "json", default])
        check(res.returncode == 0 and len(json.loads(res.stdout)["captures"][0]["transfers"]) == 2,
              "--meter keeps that meter's transfers")
        res = a.run(CTX + ["--meter", "2001:db8:1::99", "--format", "json", default])
        check(res.returncode == 0 and json.loads(res.stdout)["captures"][0]["transfers"] == [],
              "--meter with another address keeps none")
        out = os.path.join(a.tmp, "report.csv")
        res = a.run(CTX + ["--format", "csv", "-o", out, default])
        check(res.returncode == 0 and res.stdout == "" and open(out).readline().startswith("capture,transfer,"),
              "-o writes the report to a file (CSV with a header row)")
        plots = os.path.join(a.tmp, "plots")
        res = a.run(CTX + ["--plot", plots, default, secure, "--key", "00112233445566778899aabbccddeeff"])
        names = sorted(os.listdir(plots)) if os.path.isdir(plots) else []
        check(res.returncode == 0 and names == ["default-progress.svg", "default-time-split.svg",
                                                "rate-by-szx.svg", "secure-progress.svg", "secure-time-split.svg"],
              "--plot writes the plots (%s)" % names)
    finally:
        a.close()
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
