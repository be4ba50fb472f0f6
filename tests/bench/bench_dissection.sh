#!/bin/sh
# bench_dissection.sh [BUILD_DIR] [RUNS]: what the plugin costs tshark on the
# field-scale captures: wall time and peak memory of `tshark -r FILE -q`
# with meterscope.so against the same tshark with no plugin, in the same
# invocation, median of RUNS runs each (default 5). Target: time ratio <= 1.15.
# Both run as the same unprivileged user with a private plugin folder.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../../build}
runs=${2:-5}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
"$here/../../captures/make-field-set.sh" "$build/captures/meter-sim" "$tmp/field" >/dev/null
mkdir -p "$tmp/with/4.0/epan" "$tmp/without/4.0/epan" "$tmp/home"
cp "$build/plugin/meterscope.so" "$tmp/with/4.0/epan/"
chmod -R a+rwX "$tmp"
chmod 755 "$tmp"

as_user() {
    if [ "$(id -u)" = 0 ]; then
        setpriv --reuid=65534 --regid=65534 --clear-groups env HOME="$tmp/home" LC_ALL=C "$@"
    else
        env HOME="$tmp/home" LC_ALL=C "$@"
    fi
}

# median_run PLUGINDIR FILE: prints "seconds kB" (medians over the runs)
median_run() {
    for _ in $(seq "$runs"); do
        as_user env WIRESHARK_PLUGIN_DIR="$1" /usr/bin/time -f "%e %M" \
            tshark -r "$2" -q -o 6lowpan.context1:2001:db8:1::/64 2>&1 >/dev/null | tail -n 1
    done | sort -n | awk '{ t[NR] = $1; m[NR] = $2 } END { n = int((NR + 1) / 2); print t[n], m[n] }'
}

printf '%-18s %9s %10s %9s %10s %7s %7s\n' capture "base s" "base kB" "plugin s" "plugin kB" "time" "memory"
worst=0
for f in "$tmp"/field/field-szx*.pcap; do
    set -- $(median_run "$tmp/without" "$f")
    bt=$1 bm=$2
    set -- $(median_run "$tmp/with" "$f")
    pt=$1 pm=$2
    awk -v n="$(basename "$f" .pcap)" -v bt="$bt" -v bm="$bm" -v pt="$pt" -v pm="$pm" 'BEGIN {
        printf "%-18s %9.2f %10d %9.2f %10d %7.3f %7.3f\n", n, bt, bm, pt, pm, pt / bt, pm / bm }'
done
echo "target: time ratio <= 1.15 (tests/bench/bench_dissection.sh; medians of $runs runs)"
