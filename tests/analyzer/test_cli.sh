#!/bin/sh
# test_cli.sh METERSCOPE: the CLI behaves like a Unix tool: --help on stdout
# with status 0, --version, usage errors on stderr with status 1.
set -u
bin=$1
fail=0
check() { if [ "$1" = "$2" ]; then echo "ok    $3"; else echo "FAIL  $3 (got $1, want $2)"; fail=1; fi; }

out=$("$bin" --help 2>/dev/null); check $? 0 "--help exits 0"
printf '%s' "$out" | grep -q "meterscope \[OPTION.*\] CAPTURE"; check $? 0 "--help prints usage on stdout"
printf '%s' "$out" | grep -q -- "--format"; check $? 0 "--help lists the options"
out=$("$bin" --version); check $? 0 "--version exits 0"
printf '%s' "$out" | grep -q "^meterscope [0-9]"; check $? 0 "--version prints the version"
err=$("$bin" --no-such-option 2>&1 >/dev/null); check $? 1 "unknown option exits 1"
printf '%s' "$err" | grep -q "^meterscope: "; check $? 0 "unknown option explained on stderr"
err=$("$bin" 2>&1 >/dev/null); check $? 1 "no capture exits 1"
printf '%s' "$err" | grep -q "^meterscope: "; check $? 0 "errors prefixed meterscope:"
exit $fail
