#!/bin/sh
# bench_same_mid.sh [BUILD_DIR] [RUNS]: is the plugin's cost linear in the
# number of messages when they all share one Message ID? For N = 5k, 10k,
# 20k, 40k and 100k blocks of a download whose every request carries MID 7
# (same_mid_capture.py: 802.15.4, 6LoWPAN, each frame acknowledged; 4 N
# frames), the wall time of the analyser's tshark run (`-q -z meter,ota,tsv`
# with the plugin, meter.coap_decode off) against two baselines in the same
# invocation: stock tshark listing the packets without CoAP (`tshark -n -r
# FILE --disable-protocol coap`, linear) and with it (what a GUI user pays
# anyway: stock CoAP's own request tracking is quadratic here), medians of
# RUNS runs (default 3). It prints the ratios and the plugin's cost per
# message relative to N = 5k: linear means that stays near 1 or falls (it
# grew 5x from 5k to 40k before the Message ID index). A benchmark, not a
# test: run it by hand on a quiet machine.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../../build}
runs=${2:-3}
tshark=$(command -v tshark)
version=$("$here/../tshark-minor" "$tshark")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM
mkdir -p "$tmp/with/$version/epan" "$tmp/home"
cp "$build/plugin/meterscope.so" "$tmp/with/$version/epan/"
chmod -R a+rwX "$tmp"
chmod 755 "$tmp"

as_user() {
    "$here/../as-user" HOME="$tmp/home" WIRESHARK_PLUGIN_DIR="$tmp/with" "$@"
}

# seconds COMMAND...: wall time of one run, output discarded.
seconds() {
    start=$(date +%s.%N)
    "$@" >/dev/null 2>&1
    echo "$(date +%s.%N) - $start" | bc -l
}

median() {
    sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}

printf '%8s %8s %12s %12s %10s %8s %8s %16s\n' requests frames "no-CoAP s" "stock s" "plugin s" \
    "/no-CoAP" "/stock" "plugin us/msg"
base=""
for n in 5000 10000 20000 40000 100000; do
    cap=$tmp/same-mid-$n.pcap
    PYTHONPATH="$here/../lib" python3 "$here/same_mid_capture.py" "$n" "$cap"
    chmod 644 "$cap"
    : >"$tmp/nocoap"
    : >"$tmp/stock"
    : >"$tmp/plugin"
    for _ in $(seq "$runs"); do
        seconds as_user "$tshark" -n -r "$cap" --disable-protocol meter --disable-protocol coap >>"$tmp/nocoap"
        seconds as_user "$tshark" -n -r "$cap" --disable-protocol meter >>"$tmp/stock"
        seconds as_user "$tshark" -n -r "$cap" -o meter.coap_decode:FALSE -q -z meter,ota,tsv >>"$tmp/plugin"
    done
    nocoap=$(median <"$tmp/nocoap")
    stock=$(median <"$tmp/stock")
    plugin=$(median <"$tmp/plugin")
    per=$(echo "$plugin * 1000000 / (2 * $n)" | bc -l)
    [ -n "$base" ] || base=$per
    printf '%8d %8d %12.2f %12.2f %10.2f %8.2f %8.2f %8.1f (%.2fx)\n' "$n" "$((4 * n))" "$nocoap" "$stock" \
        "$plugin" "$(echo "$plugin / $nocoap" | bc -l)" "$(echo "$plugin / $stock" | bc -l)" "$per" \
        "$(echo "$per / $base" | bc -l)"
done
