#!/bin/sh
# bench_analyser.sh [BUILD_DIR] [RUNS]: what a run of the analyser costs
# against stock tshark, measured in the same invocation, medians of RUNS
# runs each (default 5), the kinds of run taking turns within each round.
#
# Captures (meter-sim, made here): a 64 KiB download at SZX 3 by one sleepy
# meter, about 10,500 frames, stamped at each frame's end, at its start and
# at the host (the three ways sniffers stamp); the same at SZX 2, about
# 21,000 frames, stamped at frame starts; and four sleepy meters downloading
# 512 kB at SZX 1 among ten background nodes, about 1.19 million frames.
#
# Baselines, each a whole process as a user starts it:
#   stock   tshark without the plugin, printing one field per frame
#           (`tshark -n -r FILE -o PREF -T fields -e frame.number`): what the
#           analyser's one tshark run is held against;
#   script  tests/bench/user_script.py: stock tshark's `-Y coap -T json`
#           read by a Python script that counts blocks, retransmissions and
#           rate per transfer (on the 1M-frame capture once, not RUNS
#           times: there it takes two minutes and 3.5 GB).
# And -j: the analyser on eight 10k-frame captures with -j 2 against -j 1.
#
# Targets (issue: one read of each capture): analyser / stock at most 0.7 in
# time and 1.2 in peak memory on every capture; script / analyser at least 4
# in time; -j 2 / -j 1 below 1.
#
# Time is the wall clock around the whole process (date +%s%N: GNU time's
# %e has 10 ms steps), memory GNU time's %M, ru_maxrss from wait4(): for the analyser the
# largest of its own peak and those of the tshark it ran (one at a time
# here). Every run is as the same unprivileged user with a private HOME
# (tshark run as root ignores WIRESHARK_PLUGIN_DIR); the stock runs get an
# empty plugin folder, so no meterscope.so takes part. A benchmark, not a
# test: run it by hand on a quiet machine. The analyser's tshark reads no
# data files (analyzer/tshark_runner.c, run_folder); stock tshark reads them,
# as it does for a user.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../../build}
runs=${2:-5}
tshark=$(command -v tshark)
pref=6lowpan.context1:2001:db8:1::/64
tmp=$(mktemp -d)
ws_minor=$("$here/../tshark-minor" tshark)
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM

mkdir -p "$tmp/cap" "$tmp/with/$ws_minor/epan" "$tmp/without/$ws_minor/epan" "$tmp/home" "$tmp/run" "$tmp/bin"
sim=$build/captures/meter-sim
for stamp in end start host; do
    "$sim" --quiet --image-size 65536 --szx 3 --timestamp "$stamp" --output "$tmp/cap/10k-$stamp.pcap"
done
"$sim" --quiet --image-size 65536 --szx 2 --timestamp start --output "$tmp/cap/21k-start.pcap"
for seed in 2 3 4 5 6; do
    "$sim" --quiet --seed "$seed" --image-size 65536 --szx 3 --output "$tmp/cap/j-$seed.pcap"
done
"$sim" --scenario field-szx1 --seed 1 --meters 4 --background 10 --quiet --output "$tmp/cap/1m.pcap"
# Copies, so that a rebuild during the benchmark cannot swap them halfway.
cp "$build/plugin/meterscope.so" "$tmp/with/$ws_minor/epan/"
cp "$build/analyzer/meterscope" "$here/user_script.py" "$tmp/bin/"
chmod -R a+rwX "$tmp"
chmod 755 "$tmp"
plugin=$tmp/with/$ws_minor/epan/meterscope.so
: >"$tmp/errors"

frames() {
    capinfos -c -M "$1" | awk -F: '/Number of packets/ { gsub(/ /, "", $2); print $2 }'
}

# timed OUT KIND FILE...: one run of KIND under GNU time, as the unprivileged
# user; appends "seconds kB exit" to OUT and a failure's messages to $tmp/errors.
timed() {
    out=$1 kind=$2
    shift 2
    case $kind in
    stock) set -- env WIRESHARK_PLUGIN_DIR="$tmp/without" "$tshark" -n -r "$1" -o "$pref" -T fields -e frame.number ;;
    script) set -- env WIRESHARK_PLUGIN_DIR="$tmp/without" python3 "$tmp/bin/user_script.py" "$1" -o "$pref" ;;
    analyser) set -- "$tmp/bin/meterscope" --plugin "$plugin" --tshark "$tshark" --no-progress -q -O "$pref" "$1" ;;
    j1 | j2) set -- "$tmp/bin/meterscope" -j "${kind#j}" --plugin "$plugin" --tshark "$tshark" --no-progress -q \
        -O "$pref" "$@" ;;
    esac
    st=0
    t0=$(date +%s%N)
    "$here/../as-user" HOME="$tmp/home" TMPDIR="$tmp/run" /usr/bin/time -f "%M" "$@" >/dev/null 2>"$tmp/err" ||
        st=$?
    t1=$(date +%s%N)
    echo "$(((t1 - t0) / 1000))e-6 $(tail -n 1 "$tmp/err") $st" >>"$out"
    # The first failure of each kind of run, whole.
    if [ "$st" != 0 ] && ! grep -q "^== $kind " "$tmp/errors"; then
        { echo "== $kind $*: exit $st"; sed '$d' "$tmp/err"; } >>"$tmp/errors"
    fi
}

# median FILE: "seconds kB worst-exit", each a median of its own over the runs
median() {
    awk 'function isort(a, k,   i, j, v) {
             for (i = 2; i <= k; i++) { v = a[i]; for (j = i - 1; j > 0 && a[j] > v; j--) a[j + 1] = a[j]; a[j + 1] = v }
         }
         { t[NR] = $1 + 0; m[NR] = $2 + 0; if ($3 + 0 > e) e = $3 + 0 }
         END { isort(t, NR); isort(m, NR); n = int((NR + 1) / 2); print t[n], m[n], e + 0 }' "$1"
}

echo "tshark $ws_minor ($("$tshark" --version | head -n 1))"
printf '%-10s %8s %8s %9s %10s %10s %8s %7s %8s %8s\n' capture frames "stock s" "stock kB" "analyser s" \
    "analyser kB" "script s" time memory script
for f in "$tmp"/cap/10k-end.pcap "$tmp"/cap/10k-start.pcap "$tmp"/cap/10k-host.pcap "$tmp"/cap/21k-start.pcap \
    "$tmp"/cap/1m.pcap; do
    name=$(basename "$f" .pcap)
    echo "measuring $name ..." >&2
    : >"$tmp/r.stock"
    : >"$tmp/r.analyser"
    : >"$tmp/r.script"
    for _ in $(seq "$runs"); do
        timed "$tmp/r.stock" stock "$f"
        timed "$tmp/r.analyser" analyser "$f"
        [ "$name" = 1m ] || timed "$tmp/r.script" script "$f"
    done
    [ "$name" != 1m ] || timed "$tmp/r.script" script "$f"
    echo "$name $(frames "$f") $(median "$tmp/r.stock") $(median "$tmp/r.analyser") $(median "$tmp/r.script")"
done | awk '{ script = sprintf("%.2f", $9 / $6)
             printf "%-10s %8d %8.3f %9d %10.3f %11d %8.3f %7.3f %8.3f %8s\n", $1, $2, $3, $4, $6, $7, $9,
                    $6 / $3, $7 / $4, script }'
echo "(time, memory: analyser / stock; script: script / analyser)"

echo "measuring -j 1 and -j 2 on eight captures ..." >&2
set -- "$tmp"/cap/10k-*.pcap "$tmp"/cap/j-*.pcap
: >"$tmp/r.j1"
: >"$tmp/r.j2"
for _ in $(seq "$runs"); do
    timed "$tmp/r.j1" j1 "$@"
    timed "$tmp/r.j2" j2 "$@"
done
awk -v a="$(median "$tmp/r.j1")" -v b="$(median "$tmp/r.j2")" -v n=$# 'BEGIN {
    split(a, s); split(b, p)
    printf "%d captures: -j 1 %.3f s, -j 2 %.3f s: -j 2 / -j 1 %.3f%s\n", n, s[1], p[1], p[1] / s[1],
           s[3] || p[3] ? sprintf("  (exit %d / %d)", s[3], p[3]) : ""
}'
if [ -s "$tmp/errors" ]; then
    echo "failures:"
    cat "$tmp/errors"
fi
echo "targets: time <= 0.7, memory <= 1.2, script >= 4, -j 2 / -j 1 < 1 (tests/bench/bench_analyser.sh, medians of $runs runs)"
