#!/bin/sh
# bench_generator.sh [METER_SIM]: wall time and peak memory of generating the
# field-scale set (512 kB image at SZX 1..6), against the 60 s budget.
# A benchmark, not a test: run it by hand on a quiet machine.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
sim=${1:-$here/../../build/captures/meter-sim}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT INT TERM
start=$(date +%s.%N)
/usr/bin/time -f "%M" -o "$out/rss" "$here/../../captures/make-field-set.sh" "$sim" "$out" >/dev/null
end=$(date +%s.%N)
awk -v s="$start" -v e="$end" -v rss="$(cat "$out/rss")" -v mb="$(du -sm "$out" | cut -f1)" 'BEGIN {
    t = e - s
    printf "field-scale set: %.2f s wall (budget 60 s: ratio %.4f), peak RSS %d kB, %d MB of captures\n",
           t, t / 60, rss, mb
}'
