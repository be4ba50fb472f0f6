#!/usr/bin/env python3
"""test_cli_fuzz.py METERSCOPE COMMITTED_DIR [RUNS [SEED]]: random command
lines, each with a defect the harness put there (an unknown option, an
option without its argument, a numeric value out of range or not a number,
an unknown format, a malformed key or meter address, text that is not
UTF-8, an argument of 100 kB, no capture at all), among valid options,
repeated ones and captures: each must be a clean usage error. Exit 1, a
message on standard error on lines that each start with `meterscope: `,
nothing on standard output, no temporary file left (TMPDIR is a fresh
folder per run), within a minute (waited on, never slept). In the
sanitizer build the analyser runs instrumented, so a memory error fails
the run too. A failure prints the command line and the seed that makes it."""
import os
import random
import shutil
import subprocess
import sys
import tempfile

from analyser_run import AS_USER, Analyser

CTX = ["-O", "6lowpan.context1:2001:db8:1::/64"]
KEY = "00112233445566778899aabbccddeeff"
SHORT_OPTIONS = set("fokmYjOqVh?")   # -? is GOption's help
# Options that take a value, and the valid values the noise gives them.
VALUED = {"--format": ["table", "csv", "json"], "-f": ["csv"], "--stall": ["1", "5", "86400"],
          "-j": ["1", "2"], "--jobs": ["1024"], "--flash-us-per-byte": ["0", "150", "10000", "0.5"],
          "--key": [KEY], "-k": [KEY], "--meter": ["2001:db8:1::1", "fe80::1"], "-m": ["2001:db8::2"],
          "-O": ["6lowpan.context0:fd00::/64"], "--pref": ["meter.ota.timestamps:auto"],
          "-Y": ["coap"], "--display-filter": ["meter"], "--plot": ["plots"], "-o": ["out.txt"]}
FLAGS = ["--no-progress", "--progress", "-q", "--quiet"]
NUMERIC = {"--stall": (1, 86400, True), "-j": (1, 1024, True), "--jobs": (1, 1024, True),
           "--flash-us-per-byte": (0, 10000, False)}
STRING_OPTIONS = ["--format", "-f", "--key", "-k", "--meter", "-m", "-Y", "-O"]   # GOption converts them from the locale
NOT_NUMBERS = ["nan", "NaN", "-nan", "inf", "-inf", "infinity", "", " ", "12abc", "1e999", "0x", "--", "1,5",
               "99999999999999999999", "-99999999999999999999", "+", "\t7", "7\n"]


def family(opt):
    """The options that set the same thing (a later one would override the defect)."""
    for group in (("--format", "-f"), ("--jobs", "-j"), ("--key", "-k"), ("--meter", "-m")):
        if opt in group:
            return set(group)
    return {opt}


def garbage(rng, n):
    """n bytes, none of them NUL (an argument cannot hold one)."""
    return bytes(rng.randrange(1, 256) for _ in range(n))


def defect(rng):
    """(arguments, options they set, where they go): arguments that make
    the command line a usage error; "last" when the argument is missing,
    "alone" for no capture at all."""
    kind = rng.randrange(10)
    if kind == 0:
        name = "--" + "".join(rng.choice("abcdefghijklmnopqrstuvwxyz-") for _ in range(rng.randrange(1, 30)))
        if name in VALUED or name in FLAGS or name in ("--help", "--version", "--plugin", "--tshark", "--"):
            name += "-unknown"
        return [name.encode()], set(), "anywhere"
    if kind == 1:
        letter = rng.choice([c for c in "abcdeghilnprstuvwxyzABCDEFGHIJKLMNPQRSTUWXZ0123456789"
                             if c not in SHORT_OPTIONS])
        return [("-" + letter).encode()], set(), "anywhere"
    if kind == 2:
        opt = rng.choice(list(VALUED) + ["--tshark", "--plugin"])
        return [opt.encode()], family(opt), "last"
    if kind == 3:   # a numeric option's value that is not a number in its range
        opt = rng.choice(list(NUMERIC))
        lo, hi, whole = NUMERIC[opt]
        value = rng.choice(NOT_NUMBERS + [str(lo - 1), str(hi + 1), str(rng.uniform(hi + 1, 1e300)),
                                          str(-rng.uniform(1e-3, 1e300))] + (["1.5", "2e2"] if whole else []))
        if rng.random() < 0.2:
            value = "9" * rng.randrange(20, 100000)
        return [opt.encode(), value.encode()], family(opt), "anywhere"
    if kind == 4:   # an unknown format, ASCII (a line break too) or not
        value = rng.choice(["xml", "TABLE", "", "csv,json", "table ", "j", "a\nb", "\x1b[2J"]).encode()
        if rng.random() < 0.3:
            value = garbage(rng, rng.randrange(1, 100000))
        return [rng.choice([b"--format", b"-f"]), value], family("--format"), "anywhere"
    if kind == 5:
        value = rng.choice(["", "0011", KEY + "0", KEY[:-1] + "g", " " + KEY[1:], KEY[:16] + "\n" + KEY[17:]])
        return [rng.choice([b"--key", b"-k"]), value.encode()], family("--key"), "anywhere"
    if kind == 6:
        value = rng.choice(["", "meter", "2001:db8::g", "1.2.3", "::1::2", "2001:db8::1/64", "fe80::1\n"])
        return [rng.choice([b"--meter", b"-m"]), value.encode()], family("--meter"), "anywhere"
    if kind == 7:   # not UTF-8 (nor ASCII: the analyser runs with LC_ALL=C)
        opt = rng.choice(STRING_OPTIONS)
        return [opt.encode(), b"\xff\xfe" + garbage(rng, rng.randrange(0, 20))], family(opt), "anywhere"
    if kind == 8:   # 100 kB of an unknown option's name
        return [b"--" + b"x" * 100000], set(), "anywhere"
    return [], set(), "alone"


def command_line(rng, captures):
    """Valid options (some repeated), flags and captures around the defect;
    never an option that would set again what the defect sets."""
    bad, taken, where = defect(rng)
    args = []
    for _ in range(rng.randrange(0, 8)):
        if rng.random() < 0.3:
            args.append(rng.choice(FLAGS).encode())
            continue
        opt = rng.choice(list(VALUED))
        if not family(opt) & taken:
            args += [opt.encode(), rng.choice(VALUED[opt]).encode()]
    if where != "alone":
        for c in rng.sample(captures, rng.randrange(0, len(captures) + 1)):
            args.insert(rng.choice(between(args)), c.encode())
    if where == "last":
        return args + bad
    at = rng.choice(between(args))
    return args[:at] + bad + args[at:]


def between(args):
    """Where an argument may go: never between an option and its value."""
    return [i for i in range(len(args) + 1) if i == 0 or args[i - 1].decode() not in VALUED]


def main():
    binary, committed = sys.argv[1:3]
    runs = int(sys.argv[3]) if len(sys.argv) > 3 else 400
    seed = int(sys.argv[4]) if len(sys.argv) > 4 else int(os.environ.get("CLI_FUZZ_SEED", "1"))
    rng = random.Random(seed)
    a = Analyser(binary)
    failures = 0
    try:
        captures = [a.copy(os.path.join(committed, "default.pcap")), os.path.join(a.tmp, "missing.pcap")]
        for run in range(runs):
            args = command_line(rng, captures)
            tmpdir = tempfile.mkdtemp(prefix="cli-fuzz-", dir=a.tmp)
            os.chmod(tmpdir, 0o777)
            cmd = [AS_USER, "HOME=" + a.home, "TMPDIR=" + tmpdir, a.exe, "--plugin", a.plugin] + CTX + args
            try:
                res = subprocess.run(cmd, capture_output=True, cwd=a.tmp, timeout=60)
                lines = res.stderr.splitlines()
                ok = (res.returncode == 1 and res.stdout == b"" and lines and
                      all(line.startswith(b"meterscope: ") for line in lines) and not os.listdir(tmpdir))
                why = "exit %d, stdout %d bytes, stderr %r, left %s" % (
                    res.returncode, len(res.stdout), res.stderr[:300], os.listdir(tmpdir))
            except subprocess.TimeoutExpired:
                ok, why = False, "still running after 60 s"
            if not ok:
                failures += 1
                shown = [x[:80] + (b"...(%d bytes)" % len(x) if len(x) > 80 else b"") for x in args]
                print("FAIL  run %d (seed %d): %r: %s" % (run, seed, shown, why))
            shutil.rmtree(tmpdir, ignore_errors=True)
        print("%s  %d malformed command lines, %d not a clean usage error (seed %d)"
              % ("ok   " if not failures else "FAIL ", runs, failures, seed))
    finally:
        a.close()
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
