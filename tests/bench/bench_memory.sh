#!/bin/sh
# bench_memory.sh [BUILD_DIR]: what the plugin adds to tshark's peak memory on
# long captures, against stock tshark in the same invocation.
#
# Two generated captures of more than a million frames each: four sleepy
# meters downloading a 512 kB image at SZX 1 among ten background nodes
# (most frames are the meters' polls, blocks and ACKs), and the busy network
# (30 background nodes, hidden terminals) downloading 1.5 MB at SZX 2.
# For each, the peak RSS (GNU time's %M) of:
#   stock      tshark without the plugin printing one field per frame
#              (`-T fields -e frame.number`): the baseline;
#   analyser   tshark with the plugin as the analyser drives it (`-o
#              meter.coap_decode:FALSE -o meter.frame_records:FALSE -q -z
#              meter,ota,tsv`: one pass, no records for later passes);
#   fields     tshark with the plugin, default preferences, printing the same
#              field as the baseline (what a script gets);
#   fields-nd  the same with the plugin's "Decode CoAP for display" off.
# Target: analyser / stock <= 1.2. The other two ratios are printed for the
# record. One run each (peak memory varies little between runs); the stock
# run takes the longest (stock CoAP's Block2 reassembly). A benchmark, not a
# test: run it by hand.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../../build}
pref=6lowpan.context1:2001:db8:1::/64
tmp=$(mktemp -d)
ws_minor=$("$here/../tshark-minor" tshark)
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM

sim=$build/captures/meter-sim
"$sim" --scenario field-szx1 --seed 1 --meters 4 --background 10 --quiet --output "$tmp/sleepy-1m.pcap"
"$sim" --scenario busy --seed 1 --image-size 1572864 --szx 2 --max-duration 21600 --quiet \
    --output "$tmp/busy-1m.pcap"
mkdir -p "$tmp/with/$ws_minor/epan" "$tmp/without/$ws_minor/epan" "$tmp/home"
cp "$build/plugin/meterscope.so" "$tmp/with/$ws_minor/epan/"
chmod -R a+rwX "$tmp"
chmod 755 "$tmp"

# peak PLUGINDIR FILE ARGS...: the run's peak RSS in kB
peak() {
    dir=$1 file=$2
    shift 2
    "$here/../as-user" HOME="$tmp/home" WIRESHARK_PLUGIN_DIR="$dir" /usr/bin/time -f "%M" \
        tshark -n -r "$file" -o "$pref" "$@" 2>&1 >/dev/null | tail -n 1
}

printf '%-10s %9s %10s %10s %10s %10s %9s %9s %9s\n' capture frames "stock kB" "analyser" "fields" \
    "fields-nd" "analyser" "fields" "fields-nd"
for f in "$tmp"/sleepy-1m.pcap "$tmp"/busy-1m.pcap; do
    n=$(capinfos -c -M "$f" | awk -F: '/Number of packets/ { gsub(/ /, "", $2); print $2 }')
    s=$(peak "$tmp/without" "$f" -T fields -e frame.number)
    a=$(peak "$tmp/with" "$f" -o meter.coap_decode:FALSE -o meter.frame_records:FALSE -q -z meter,ota,tsv)
    d=$(peak "$tmp/with" "$f" -T fields -e frame.number)
    nd=$(peak "$tmp/with" "$f" -o meter.coap_decode:FALSE -T fields -e frame.number)
    echo "$(basename "$f" .pcap) $n $s $a $d $nd"
done | awk '{ printf "%-10s %9d %10d %10d %10d %10d %9.3f %9.3f %9.3f\n", $1, $2, $3, $4, $5, $6,
              $4 / $3, $5 / $3, $6 / $3 }'
echo "ratios: peak RSS over stock tshark's; target: analyser <= 1.2 (tests/bench/bench_memory.sh)"
