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
# (this / other, of the plugin's instructions and of the whole run).
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
# plugin: the instructions the plugin cost the last run, counted at the
# calls into meterscope.so (callgrind_entry_cost.py: its own instructions and
# what it asks of libwireshark; a refactoring may move work between the two)
plugin() {
    python3 "$here/callgrind_entry_cost.py" "$tmp/out/cg" meterscope.so
}

echo "tshark $ws_minor, instructions to dissect each capture in full (-V -z meter,ota):"
printf '  %-26s %14s %14s %14s %12s %12s %7s %7s\n' capture stock this other "this plugin" "other plugin" plugin run
for cap in "$@"; do
    s=$(count stock "$cap")
    t=$(count this "$cap")
    tp=$(plugin)
    o=$(count other "$cap")
    op=$(plugin)
    awk -v n="$(basename "$cap")" -v s="$s" -v t="$t" -v o="$o" -v tp="$tp" -v op="$op" 'BEGIN {
        printf "  %-26s %14.0f %14.0f %14.0f %12.0f %12.0f %7.4f %7.4f\n", n, s, t, o, tp, op, op ? tp / op : 0, t / o }'
done
echo "  plugin: the instructions of the calls into meterscope.so (registration, dissection, taps), this / other"
echo "  run: the whole run, this / other"
echo "  (the whole run varies by a few hundred thousand instructions between identical runs: stock shows it)"
