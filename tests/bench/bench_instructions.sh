#!/bin/sh
# bench_instructions.sh OTHER_SO [BUILD_DIR] [CAPTURE...]: the instructions
# tshark executes dissecting each capture in full (-V, with the plugin's
# statistics tap: -z meter,ota) with this build's meterscope.so against
# OTHER_SO (another revision's build of it), counted by valgrind's callgrind:
# the same count for the same binaries and inputs whatever else the machine
# does, so a refactoring's cost is seen to a fraction of a percent. Stock
# tshark (no plugin) runs too; the plugin's own cost is the difference.
# Default captures: the committed busy, multihop and two-meters ones and the
# real OpenThread capture. A benchmark, not a test: prints the ratios
# (this / other, of the plugin's own instructions and of the whole run).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
[ $# -ge 1 ] || { echo "usage: bench_instructions.sh OTHER_SO [BUILD_DIR] [CAPTURE...]" >&2; exit 2; }
other=$1
build=${2:-$here/../../build}
[ $# -ge 2 ] && shift 2 || shift $#
command -v valgrind >/dev/null || { echo "bench_instructions: valgrind not found (apt-get install valgrind)" >&2; exit 1; }
[ -f "$other" ] || { echo "bench_instructions: no such file: $other" >&2; exit 1; }
committed=$here/../../captures/committed
if [ $# = 0 ]; then
    set -- "$committed/busy.pcap" "$committed/multihop.pcap" "$committed/two-meters.pcap"
    real=$here/../../../shared/captures-real/openthread
    [ -f "$real/ot-01-block2-1hop.pcap" ] && set -- "$@" "$real/ot-01-block2-1hop.pcap"
fi
tmp=$(mktemp -d)
ws_minor=$("$here/../tshark-minor" tshark)
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM
for v in this other stock; do mkdir -p "$tmp/$v/$ws_minor/epan"; done
cp "$build/plugin/meterscope.so" "$tmp/this/$ws_minor/epan/"
cp "$other" "$tmp/other/$ws_minor/epan/meterscope.so"
mkdir -p "$tmp/home" "$tmp/out"
chmod -R a+rwX "$tmp"
chmod 755 "$tmp"

# count VARIANT CAPTURE: the run's instructions (callgrind's "Collected")
count() {
    cp "$2" "$tmp/in.cap"
    chmod a+r "$tmp/in.cap"
    tap=""
    [ "$1" = stock ] || tap="-z meter,ota"
    # shellcheck disable=SC2086  # tap is one option and its value, or nothing
    "$here/../as-user" HOME="$tmp/home" WIRESHARK_PLUGIN_DIR="$tmp/$1" \
        valgrind --tool=callgrind --callgrind-out-file="$tmp/out/cg" \
        tshark -n -r "$tmp/in.cap" -V $tap 2>&1 >/dev/null | awk '/Collected/ { gsub(",", "", $4); print $4 }'
}
# self: the instructions executed in meterscope.so itself in the last run
# (callgrind's self cost of its functions; what they ask of epan is not in it)
self() {
    callgrind_annotate --threshold=100 "$tmp/out/cg" 2>/dev/null |
        awk '/meterscope\.so\]$/ { gsub(",", "", $1); n += $1 } END { printf "%d\n", n }'
}

echo "tshark $ws_minor, instructions to dissect each capture in full (-V -z meter,ota):"
printf '  %-28s %14s %14s %14s %12s %12s %8s %8s\n' capture stock this other "this in .so" "other in .so" ".so" run
for cap in "$@"; do
    s=$(count stock "$cap")
    t=$(count this "$cap")
    ts=$(self)
    o=$(count other "$cap")
    os=$(self)
    awk -v n="$(basename "$cap")" -v s="$s" -v t="$t" -v o="$o" -v ts="$ts" -v os="$os" 'BEGIN {
        printf "  %-28s %14d %14d %14d %12d %12d %8.4f %8.4f\n", n, s, t, o, ts, os, os ? ts / os : 0, t / o }'
done
echo "  .so: the instructions in meterscope.so itself, this / other; run: the whole run, this / other"
echo "  (the whole run varies by a few hundred thousand instructions between identical runs: stock shows it)"
