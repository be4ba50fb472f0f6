#!/bin/sh
# bench_dissection.sh [BUILD_DIR] [RUNS] [OTHER_SO]: what the plugin costs tshark on the
# field-scale captures: wall time and peak memory of tshark dissecting each
# capture with meterscope.so against the same tshark with no plugin, in the
# same invocation, median of RUNS runs each (default 5). Target: time ratio
# <= 1.15. Two ways to dissect: printing the packet list (`tshark -r FILE`)
# and the full detail (`tshark -r FILE -V`). (`tshark -r FILE -q` alone does
# not dissect at all.) Both run as the same unprivileged user with a private
# plugin folder. With OTHER_SO (another build of meterscope.so, say the
# previous revision's), it runs too, in the same invocation, and the last
# column is this build's time over that one's.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../../build}
runs=${2:-5}
other=${3:-}
tmp=$(mktemp -d)
# The plugin folder is named for the Wireshark minor version (4.0, 4.4, 4.6).
ws_minor=$("$here/../tshark-minor" tshark)
trap 'rm -rf "$tmp"' EXIT INT TERM
"$here/../../captures/make-field-set.sh" "$build/captures/meter-sim" "$tmp/field" >/dev/null
mkdir -p "$tmp/with/$ws_minor/epan" "$tmp/without/$ws_minor/epan" "$tmp/home"
cp "$build/plugin/meterscope.so" "$tmp/with/$ws_minor/epan/"
if [ -n "$other" ]; then
    mkdir -p "$tmp/other/$ws_minor/epan"
    cp "$other" "$tmp/other/$ws_minor/epan/meterscope.so"
fi
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

printf '%-8s %-12s %9s %10s %9s %10s %7s %7s%s\n' mode capture "base s" "base kB" "plugin s" "plugin kB" \
    "time" "memory" "${other:+   other s  vs other}"
for mode in list -V; do
    for f in "$tmp"/field/field-szx*.pcap; do
        if [ "$mode" = list ]; then set --; else set -- "$mode"; fi
        b=$(median_run "$tmp/without" "$f" "$@")
        p=$(median_run "$tmp/with" "$f" "$@")
        o=
        [ -z "$other" ] || o=$(median_run "$tmp/other" "$f" "$@")
        echo "$mode $(basename "$f" .pcap) $b $p $o"
    done
done | awk '{ printf "%-8s %-12s %9.2f %10d %9.2f %10d %7.3f %7.3f", $1, $2, $3, $4, $5, $6, $5 / $3, $6 / $4
              if (NF > 6) printf " %9.2f %9.3f", $7, $5 / $7
              printf "\n"
              tb[$1] += $3; tp[$1] += $5; to[$1] += $7 }
            END { for (m in tb) { printf "%-8s %-12s %9.2f %10s %9.2f %10s %7.3f", m, "all six", tb[m], "", tp[m], "", tp[m] / tb[m]
                                  if (to[m] > 0) printf " %7s %9.2f %9.3f", "", to[m], tp[m] / to[m]
                                  printf "\n" } }' 
echo "target: time ratio <= 1.15 (tests/bench/bench_dissection.sh; medians of $runs runs)"
