#!/bin/sh
# bench_analyser.sh [BUILD_DIR] [RUNS]: what the analyser costs over tshark.
# For the field-scale captures (captures/make-field-set.sh) and a large
# busy-network capture (meter-sim --scenario busy with a 3 MiB image at SZX 2:
# about 2.4 million frames), the wall time and peak memory of
# `meterscope CAPTURE` as ratios to tshark with the same plugin, measured in
# the same invocation, medians of RUNS runs each (default 3). Targets: time
# ratio <= 1.10 and memory ratio <= 1.2; and analysing the six field-scale
# captures with `-j 2` against `-j 1` (one after the other): time ratio <= 0.6.
#
# The baseline the targets apply to is the tshark run that dissects what the
# analyser needs and prints nothing but the plugin's statistics: `tshark -n
# -r FILE -o PREF -o meter.coap_decode:FALSE -o meter.frame_records:FALSE -q -z meter,ota,tsv`, the very
# run the analyser drives. The issue named a bare `tshark -r FILE -q`, but
# tshark with no tap, filter or output does not dissect at all (tshark.c:
# must_do_dissection), so it only reads the file: no tool that dissects can
# come within 10% of it. Its ratios are printed too, for the record.
# Memory is GNU time's %M, ru_maxrss from wait4(): for the analyser that is
# the largest of its own peak RSS and the peaks of the tshark children it has
# reaped, i.e. the biggest single process of the tree, not their sum (with
# -j 2 two tsharks run at once, and the real footprint can be up to twice
# that). The analyser's own peak ("own kB", meterscope without tshark) comes
# from one extra, untimed run per capture that samples the meterscope
# process's VmHWM every 50 ms (it can miss growth in the last 50 ms); that run
# also warms the page cache. Every run is as the same unprivileged user with a
# private plugin folder (tshark run as root ignores WIRESHARK_PLUGIN_DIR), and
# the three kinds of run take turns within each round. A benchmark, not a
# test: run it by hand on a quiet machine.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../../build}
runs=${2:-3}
tshark=$(command -v tshark)
pref=6lowpan.context1:2001:db8:1::/64
big_opts="--scenario busy --seed 1 --image-size 3145728 --szx 2 --max-duration 21600"
tmp=$(mktemp -d)
# The plugin folder is named for the Wireshark minor version (4.0, 4.4, 4.6).
ws_minor=$("$here/../tshark-minor" tshark)
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM

"$here/../../captures/make-field-set.sh" "$build/captures/meter-sim" "$tmp/cap" >/dev/null
# shellcheck disable=SC2086 # big_opts is a list of options
"$build/captures/meter-sim" $big_opts --quiet --output "$tmp/cap/busy-2m.pcap"
mkdir -p "$tmp/with/$ws_minor/epan" "$tmp/home" "$tmp/run" "$tmp/bin"
# Copies, so that a rebuild during the benchmark cannot swap them halfway.
cp "$build/plugin/meterscope.so" "$tmp/with/$ws_minor/epan/"
cp "$build/analyzer/meterscope" "$tmp/bin/"
chmod -R a+rwX "$tmp"
chmod 755 "$tmp"
plugin=$tmp/with/$ws_minor/epan/meterscope.so
: >"$tmp/errors"

frames() {
    capinfos -c -M "$1" | awk -F: '/Number of packets/ { gsub(/ /, "", $2); print $2 }'
}

# run_as_user COMMAND [ARG]...: the unprivileged user, private HOME, TMPDIR
# and plugin folder.
run_as_user() {
    "$here/../as-user" HOME="$tmp/home" TMPDIR="$tmp/run" WIRESHARK_PLUGIN_DIR="$tmp/with" "$@"
}

# timed OUT KIND FILE...: one run of KIND (bare, tap or analyser; j1 and j2
# take several files) under GNU time; appends "seconds kB exit" to OUT and any
# failure's messages to $tmp/errors.
timed() {
    out=$1 kind=$2 what=$(basename "$3")
    shift 2
    [ $# = 1 ] || what="$# captures"
    case $kind in
    bare) set -- "$tshark" -r "$1" -q -o "$pref" ;;
    tap) set -- "$tshark" -n -r "$1" -o "$pref" -o meter.coap_decode:FALSE -o meter.frame_records:FALSE -q -z meter,ota,tsv ;;
    analyser) set -- "$tmp/bin/meterscope" --plugin "$plugin" --tshark "$tshark" --no-progress -q -O "$pref" "$1" ;;
    j1 | j2) set -- "$tmp/bin/meterscope" -j "${kind#j}" --plugin "$plugin" --tshark "$tshark" --no-progress -q \
        -O "$pref" "$@" ;;
    esac
    st=0
    run_as_user /usr/bin/time -f "%e %M" "$@" >/dev/null 2>"$tmp/err" || st=$?
    echo "$(tail -n 1 "$tmp/err") $st" >>"$out"
    if [ "$st" != 0 ]; then
        { echo "== $kind $what: exit $st"; sed '$d' "$tmp/err"; } >>"$tmp/errors"
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

# own_peak FILE: the meterscope process's own peak RSS (VmHWM, kB), sampled
# every 50 ms during one untimed run. The subshell execs as-user, which execs
# setpriv, env and meterscope, so $! ends up being meterscope.
own_peak() {
    (exec "$here/../as-user" HOME="$tmp/home" TMPDIR="$tmp/run" WIRESHARK_PLUGIN_DIR="$tmp/with" \
        "$tmp/bin/meterscope" --plugin "$plugin" --tshark "$tshark" --no-progress -q -O "$pref" "$1" \
        >/dev/null 2>&1) &
    pid=$!
    hwm=0
    while :; do
        v=$(awk '/^State:/ && $2 == "Z" { z = 1 } /^VmHWM:/ { h = $2 } END { print z ? "end" : h + 0 }' \
            "/proc/$pid/status" 2>/dev/null) || break
        [ "$v" = end ] && break
        [ "$v" -gt "$hwm" ] && hwm=$v
        sleep 0.05
    done
    wait "$pid" || true
    echo "$hwm"
}

n_big=$(frames "$tmp/cap/busy-2m.pcap")
for f in "$tmp"/cap/field-szx*.pcap "$tmp/cap/busy-2m.pcap"; do
    name=$(basename "$f" .pcap)
    echo "measuring $name ..." >&2
    own=$(own_peak "$f")
    : >"$tmp/r.bare"
    : >"$tmp/r.tap"
    : >"$tmp/r.analyser"
    for _ in $(seq "$runs"); do
        timed "$tmp/r.bare" bare "$f"
        timed "$tmp/r.tap" tap "$f"
        timed "$tmp/r.analyser" analyser "$f"
    done
    echo "$name $(frames "$f") $(median "$tmp/r.bare") $(median "$tmp/r.tap") $(median "$tmp/r.analyser") $own"
done >"$tmp/rows"

echo "measuring -j 1 and -j 2 on the six field-scale captures ..." >&2
: >"$tmp/r.j1"
: >"$tmp/r.j2"
for _ in $(seq "$runs"); do
    timed "$tmp/r.j1" j1 "$tmp"/cap/field-szx*.pcap
    timed "$tmp/r.j2" j2 "$tmp"/cap/field-szx*.pcap
done

echo "large busy capture: busy-2m, $n_big frames (meter-sim $big_opts)"
if [ "$n_big" -lt 2000000 ]; then
    echo "warning: busy-2m has fewer than 2000000 frames"
fi
printf '%-9s %-11s %8s %8s %9s %10s %10s %9s %7s %7s\n' baseline capture frames "base s" "base kB" \
    "analyser s" "analyser kB" "own kB" time memory
# rows: name frames bare(s kB exit) tap(s kB exit) analyser(s kB exit) own
awk '{ for (b = 0; b < 2; b++) {
           i = NR * 2 + b; base = b ? "tap -z" : "tshark -q"
           line[i] = sprintf("%-9s %-11s %8d %8.2f %9d %10.2f %11d %9d %7.3f %7.3f%s", base, $1, $2,
                             $(3 + 3 * b), $(4 + 3 * b), $9, $10, $12, $9 / $(3 + 3 * b), $10 / $(4 + 3 * b),
                             $11 ? sprintf("  analyser exit %d", $11) : "")
           tb[b] += $(3 + 3 * b); ta[b] += $9
       } }
     END { for (b = 1; b >= 0; b--) {   # the target baseline first
               for (i = 1; i <= NR; i++) print line[i * 2 + b]
               printf "%-9s %-11s %8s %8.2f %9s %10.2f %11s %9s %7.3f\n", b ? "tap -z" : "tshark -q", "all seven", "",
                      tb[b], "", ta[b], "", "", ta[b] / tb[b]
           } }' "$tmp/rows"
echo "(tshark -q: tshark -r FILE -q -o PREF; tap -z: tshark -n -r FILE -o PREF -o meter.coap_decode:FALSE -o meter.frame_records:FALSE -q -z meter,ota,tsv, the run the" \
    "analyser drives; analyser kB: largest single process, meterscope or a tshark it ran; own kB: meterscope alone)"
awk -v a="$(median "$tmp/r.j1")" -v b="$(median "$tmp/r.j2")" 'BEGIN {
    split(a, s); split(b, p)
    printf "six field-scale captures: -j 1 %.2f s %d kB, -j 2 %.2f s %d kB: time ratio %.3f%s\n",
           s[1], s[2], p[1], p[2], p[1] / s[1], s[3] || p[3] ? sprintf("  (exit %d / %d)", s[3], p[3]) : ""
}'
if [ -s "$tmp/errors" ]; then
    echo "failures:"
    cat "$tmp/errors"
fi
echo "target: against tap -z, time ratio <= 1.10 and memory ratio <= 1.2; -j 2 / -j 1 time ratio <= 0.6" \
    "(tests/bench/bench_analyser.sh; medians of $runs runs)"
