#!/bin/sh
# bench_startup.sh [BUILD_DIR]: what a tshark run pays before its first
# frame, in instructions (valgrind's callgrind: the same count for the same
# binaries and inputs, whatever else the machine does), on an empty capture:
#   stock        tshark without the plugin (an empty plugin folder);
#   plugin       tshark with the plugin loaded;
#   analyser     the analyser's run: the plugin, its preferences and tap,
#                and an empty data folder (analyzer/tshark_runner.c);
# and, of the plugin's own functions, what its registration, handoff,
# preferences and UAT cost (callgrind's inclusive counts of
# proto_register_meter, proto_reg_handoff_meter and cfg_key_post_update_cb).
# Ratios are against stock in the same invocation. A benchmark, not a test.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../../build}
tmp=$(mktemp -d)
ws_minor=$("$here/../tshark-minor" tshark)
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM
command -v valgrind >/dev/null || { echo "bench_startup: valgrind not found (apt-get install valgrind)" >&2; exit 1; }

mkdir -p "$tmp/with/$ws_minor/epan" "$tmp/without/$ws_minor/epan" "$tmp/data" "$tmp/home" "$tmp/out"
cp "$build/plugin/meterscope.so" "$tmp/with/$ws_minor/epan/"
# An empty capture (a pcap header, link type 195) that the unprivileged user can read.
printf '\324\303\262\241\002\000\004\000\000\000\000\000\000\000\000\000\377\377\000\000\303\000\000\000' \
    >"$tmp/empty.pcap"
chmod -R a+rwX "$tmp"
chmod 755 "$tmp"

# count NAME ENV... -- TSHARK_ARGS...: the run's instructions; its callgrind file is $tmp/out/NAME
count() {
    name=$1
    shift
    env=""
    while [ "$1" != -- ]; do env="$env $1"; shift; done
    shift
    # shellcheck disable=SC2086  # env is a list of VAR=VALUE words
    "$here/../as-user" HOME="$tmp/home" $env valgrind --tool=callgrind --callgrind-out-file="$tmp/out/$name" \
        tshark -n -r "$tmp/empty.pcap" "$@" 2>&1 >/dev/null | awk '/Collected/ { gsub(",", "", $4); print $4 }'
}

stock=$(count stock WIRESHARK_PLUGIN_DIR="$tmp/without" -- -q)
plugin=$(count plugin WIRESHARK_PLUGIN_DIR="$tmp/with" -- -q)
analyser=$(count analyser WIRESHARK_PLUGIN_DIR="$tmp/with" WIRESHARK_DATA_DIR="$tmp/data" -- \
    -o meter.coap_decode:FALSE -o meter.frame_records:FALSE -q -z meter,ota,tsv)
echo "tshark $ws_minor, instructions before the first frame (an empty capture):"
awk -v s="$stock" -v p="$plugin" -v a="$analyser" 'BEGIN {
    printf "  %-9s %13d\n  %-9s %13d  %.4f of stock\n  %-9s %13d  %.4f of stock\n", "stock", s, "plugin", p, p / s,
           "analyser", a, a / s
}'
echo "the plugin's own set-up (inclusive):"
callgrind_annotate --inclusive=yes --threshold=100 "$tmp/out/plugin" 2>/dev/null |
    awk '{ n = ""; for (i = 2; i <= NF && n == ""; i++) if ($i ~ /:[A-Za-z_]/) n = $i
           sub(/.*:/, "", n)
           if ((n == "proto_register_meter" || n == "proto_reg_handoff_meter" || n == "cfg_key_post_update_cb") &&
               !(n in seen)) { seen[n] = 1; gsub(",", "", $1); printf "  %-24s %10d\n", n, $1 } }'
