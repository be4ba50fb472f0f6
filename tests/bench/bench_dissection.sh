#!/bin/sh
# bench_dissection.sh [BUILD_DIR] [RUNS]: what the plugin costs tshark on the
# field-scale captures: wall time and peak memory of tshark dissecting each
# capture with meterscope.so against the same tshark with no plugin, in the
# same invocation, median of RUNS runs each (default 5). Target: time ratio
# <= 1.15. Two ways to dissect: printing the packet list (`tshark -r FILE`)
# and the full detail (`tshark -r FILE -V`). (`tshark -r FILE -q` alone does
# not dissect at all.) Both run as the same unprivileged user with a private
# plugin folder.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../../build}
runs=${2:-5}
tmp=$(mktemp -d)
# The plugin folder is named for the Wireshark minor version (4.0, 4.4, 4.6).
ws_minor=$("$here/../tshark-minor" tshark)
trap 'rm -rf "$tmp"' EXIT INT TERM
"$here/../../captures/make-field-set.sh" "$build/captures/meter-sim" "$tmp/field" >/dev/null
mkdir -p "$tmp/with/$ws_minor/epan" "$tmp/without/$ws_minor/epan" "$tmp/home"
cp "$build/plugin/meterscope.so" "$tmp/with/$ws_minor/epan/"
chmod -R a+rwX "$tmp"
chmod 755 "$tmp"

as_user() {
    "$here/../as-user" HOME="$tmp/home" "$@"
}

# median_run PLUGINDIR FILE MODE...: prints "seconds kB" (medians over the runs)
median_run() {
    dir=$1 file=$2
    shift 2
    for _ in $(seq "$runs"); do
        as_user env WIRESHARK_PLUGIN_DIR="$dir" /usr/bin/time -f "%e %M" \
            tshark -r "$file" -o 6lowpan.context1:2001:db8:1::/64 "$@" 2>&1 >/dev/null | tail -n 1
    done | sort -n | awk '{ t[NR] = $1; m[NR] = $2 } END { n = int((NR + 1) / 2); print t[n], m[n] }'
}

printf '%-8s %-12s %9s %10s %9s %10s %7s %7s\n' mode capture "base s" "base kB" "plugin s" "plugin kB" \
    "time" "memory"
for mode in list -V; do
    for f in "$tmp"/field/field-szx*.pcap; do
        if [ "$mode" = list ]; then set --; else set -- "$mode"; fi
        b=$(median_run "$tmp/without" "$f" "$@")
        p=$(median_run "$tmp/with" "$f" "$@")
        echo "$mode $(basename "$f" .pcap) $b $p"
    done
done | awk '{ printf "%-8s %-12s %9.2f %10d %9.2f %10d %7.3f %7.3f\n", $1, $2, $3, $4, $5, $6, $5 / $3, $6 / $4
              tb[$1] += $3; tp[$1] += $5 }
            END { for (m in tb) printf "%-8s %-12s %9.2f %10s %9.2f %10s %7.3f\n", m, "all six", tb[m], "", tp[m], "", tp[m] / tb[m] }' 
echo "target: time ratio <= 1.15 (tests/bench/bench_dissection.sh; medians of $runs runs)"
