#!/bin/sh
# test_libcoap_block2.sh METERSCOPE: a real CoAP stack, not ours, under loss
# and delay, against what the analyser makes of its captures.
#
# libcoap's coap-server and coap-client (Debian libcoap3-bin) run in two
# network namespaces joined by a veth pair:
#
#   ns C: coap-client  [fd6d:5300::1] --veth-- [fd6d:5300::2] udp_relay.py  ns S
#         ^ "meter" capture (dumpcap on C's veth)   |  lo: [fd6d:5301::11] -> [fd6d:5301::10] coap-server
#                                                   ^ "gateway" capture (dumpcap on S's lo)
#
# The relay (tests/realstack/udp_relay.py) drops and delays datagrams with a
# seeded generator and logs each one; that log is the ground truth. The
# server is given a deterministic 3000-byte image by a PUT (its -d dynamic
# resources keep what is PUT), then the client GETs it through the relay
# with Block2 three times: 64-byte blocks with 5% loss each way, 512-byte
# blocks with 5% loss, and 512-byte blocks over a path 1.7 s slow each way
# and no loss (a round trip of 3.4 s, above ACK_TIMEOUT x ACK_RANDOM_FACTOR
# = 3 s: every request is retransmitted once, spuriously), except for the
# first exchange (libcoap 4.3.1's client starts over, for ever, when the late
# answer to a retransmitted block-0 request comes in mid-download). Each run's two
# captures go through the analyser and check_libcoap_block2.py compares its
# numbers with the relay's log; check_libcoap_pair.py does the same for the
# two captures paired (--vantage meter=... --vantage gateway=...).
#
# Needs root (namespaces, captures) and the packages of scripts/install-deps.sh.
# Exit 77 (a skip to ctest) only when not root, or where network namespaces
# cannot be made (a chroot: .ci/run then fails); anything else that is missing
# or fails is a failure. Everything (namespaces, processes, files) is removed
# on exit, on INT and TERM too; REALSTACK_KEEP=DIR copies the work files there,
# REALSTACK_RUNS="b512-slow ..." runs only those.
set -u
METERSCOPE=${1:?usage: test_libcoap_block2.sh METERSCOPE}
HERE=$(cd "$(dirname "$0")" && pwd)

if [ "$(id -u)" != 0 ]; then
    echo "SKIP  realstack needs root (network namespaces, dumpcap); CI runs it as root"
    exit 77
fi
fail() { echo "FAIL  $*"; exit 1; }
for tool in ip dumpcap coap-server-notls coap-client-notls python3 timeout cmp; do
    command -v "$tool" >/dev/null 2>&1 || fail "$tool not found (scripts/install-deps.sh installs it)"
done

RUNS=${REALSTACK_RUNS:-b64-loss b512-loss b512-slow}
DONE=""
# Namespaces are named after this shell's pid; those of a run that was
# killed (no trap runs on KILL, as on a ctest timeout) go first.
for ns in $(ip netns list 2>/dev/null | sed -n 's/^\(msrs[0-9]*[cs]\)\b.*/\1/p'); do
    pid=${ns#msrs}; pid=${pid%?}
    kill -0 "$pid" 2>/dev/null || ip netns del "$ns" 2>/dev/null
done
NS_C=msrs$$c
NS_S=msrs$$s
WORK=$(mktemp -d /tmp/meterscope-realstack.XXXXXX) || fail "mktemp"
PIDS=""
cleanup() {
    rc=$?
    trap - INT TERM EXIT
    for p in $PIDS; do kill "$p" 2>/dev/null; done
    for p in $PIDS; do
        # A process given TERM has 5 s, then KILL.
        i=0
        while kill -0 "$p" 2>/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
        kill -9 "$p" 2>/dev/null
    done
    ip netns del "$NS_C" 2>/dev/null
    ip netns del "$NS_S" 2>/dev/null
    if [ "$rc" != 0 ] && [ "$rc" != 77 ]; then
        for f in "$WORK"/*.err "$WORK"/*.out; do
            [ -s "$f" ] || continue
            echo "---- $(basename "$f") (last 30 lines)"
            tail -n 30 "$f"
        done
    fi
    [ -n "${REALSTACK_KEEP:-}" ] && mkdir -p "$REALSTACK_KEEP" && cp -r "$WORK"/. "$REALSTACK_KEEP"/
    rm -rf "$WORK"
    exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# wait_for SECONDS WHAT COMMAND...: polls COMMAND every 50 ms until it
# succeeds, for SECONDS at most (wall clock).
wait_for() {
    deadline=$(( $(date +%s) + $1 )); what=$2; shift 2
    until "$@"; do
        [ "$(date +%s)" -ge $deadline ] && fail "timed out waiting for $what"
        sleep 0.05
    done
}
has_header() { [ -f "$1" ] && [ "$(wc -c < "$1")" -ge 24 ]; }
# stop PID: TERM, then wait up to 10 s for it to go.
stop() {
    kill "$1" 2>/dev/null
    i=0
    while kill -0 "$1" 2>/dev/null; do
        i=$((i + 1))
        [ $i -ge 200 ] && fail "process $1 did not stop"
        sleep 0.05
    done
    wait "$1" 2>/dev/null
    PIDS=$(echo "$PIDS" | sed "s/\b$1\b//")
}

# The namespaces. Where they cannot be made or entered (a chroot, an
# unprivileged container: ip netns exec needs to remount /), the test cannot
# run: a skip that says why, which .ci/run does not accept on CI's host.
if ! ip netns add "$NS_C" 2>"$WORK/netns.err" || ! ip netns exec "$NS_C" true 2>>"$WORK/netns.err"; then
    echo "SKIP  network namespaces cannot be made or entered here: $(tr '\n' ' ' < "$WORK/netns.err")"
    exit 77
fi
# nodad: an address under duplicate detection cannot be bound yet.
ip netns add "$NS_S" || fail "ip netns add"
ip link add "${NS_C}v" netns "$NS_C" type veth peer name "${NS_S}v" netns "$NS_S" || fail "veth pair"
if ! { ip -n "$NS_C" link set lo up && ip -n "$NS_S" link set lo up &&
        ip -n "$NS_C" addr add fd6d:5300::1/64 dev "${NS_C}v" nodad &&
        ip -n "$NS_S" addr add fd6d:5300::2/64 dev "${NS_S}v" nodad &&
        ip -n "$NS_S" addr add fd6d:5301::10/128 dev lo nodad &&
        ip -n "$NS_S" addr add fd6d:5301::11/128 dev lo nodad &&
        ip -n "$NS_C" link set "${NS_C}v" up && ip -n "$NS_S" link set "${NS_S}v" up; }; then
    fail "addresses"
fi

# The image: 3000 deterministic bytes (not a multiple of either block size).
python3 -c 'import hashlib,sys; b=b"".join(hashlib.sha256(b"meterscope realstack %d" % i).digest() for i in range(94)); sys.stdout.buffer.write(b[:3000])' \
    > "$WORK/image.bin" || fail "image"

ip netns exec "$NS_S" timeout 170 coap-server-notls -A fd6d:5301::10 -p 5683 -d 4 -v 4 \
    > "$WORK/coap-server.out" 2> "$WORK/coap-server.err" &
PIDS="$PIDS $!"
# The PUT goes straight to the server (no relay, no capture running); it is
# retried until the server is up.
put_image() {
    ip netns exec "$NS_S" timeout 10 coap-client-notls -m put -b 512 -B 5 -f "$WORK/image.bin" \
        'coap://[fd6d:5301::10]/image' >> "$WORK/put.out" 2>> "$WORK/put.err"
}
wait_for 20 "the PUT of the image to coap-server" put_image

# run NAME BLOCK_SIZE LOSS DELAY_LOW_MS DELAY_HIGH_MS SEED [UNDELAYED]
run() {
    name=$1
    case " $RUNS " in *" $name "*) ;; *) return 0 ;; esac
    DONE="$DONE $WORK/$name"
    rm -f "$WORK/$name.ready"
    ip netns exec "$NS_C" timeout 120 dumpcap -q -P -i "${NS_C}v" -f "udp port 5683" -w "$WORK/$name-meter.pcap" \
        2> "$WORK/$name-dumpcap-meter.err" &
    dm=$!; PIDS="$PIDS $dm"
    ip netns exec "$NS_S" timeout 120 dumpcap -q -P -i lo -f "udp port 5683" -w "$WORK/$name-gateway.pcap" \
        2> "$WORK/$name-dumpcap-gateway.err" &
    dg=$!; PIDS="$PIDS $dg"
    ip netns exec "$NS_S" timeout 120 python3 "$HERE/udp_relay.py" --listen fd6d:5300::2 5683 \
        --upstream fd6d:5301::10 5683 --source fd6d:5301::11 --log "$WORK/$name.log" \
        --ready "$WORK/$name.ready" --seed "$6" --loss "$3" --delay-ms "$4" "$5" --undelayed "${7:-0}" --max-seconds 110 \
        2> "$WORK/$name-relay.err" &
    relay=$!; PIDS="$PIDS $relay"
    wait_for 10 "the meter capture to start" has_header "$WORK/$name-meter.pcap"
    wait_for 10 "the gateway capture to start" has_header "$WORK/$name-gateway.pcap"
    wait_for 10 "the relay" test -f "$WORK/$name.ready"
    start=$(date +%s%N)
    # In the background and waited for, so that INT and TERM are handled at once.
    ip netns exec "$NS_C" timeout 55 coap-client-notls -m get -b "$2" -B 45 -o "$WORK/$name.bin" \
        'coap://[fd6d:5300::2]/image' > "$WORK/$name-client.out" 2> "$WORK/$name-client.err" &
    client=$!; PIDS="$PIDS $client"
    wait "$client"; crc=$?
    PIDS=$(echo "$PIDS" | sed "s/\b$client\b//")
    [ $crc = 0 ] || fail "$name: coap-client exited $crc"
    echo "$name: coap-client took $(( ($(date +%s%N) - start) / 1000000 )) ms"
    cmp -s "$WORK/image.bin" "$WORK/$name.bin" || fail "$name: the downloaded image differs from the one PUT"
    # The relay first (it logs what it still holds), then the captures.
    stop "$relay"; stop "$dm"; stop "$dg"
}
# Seeds picked so that each lossy run drops requests (not only the first)
# and responses; the checker asserts it happened.
run b64-loss 64 0.05 4 6 7
run b512-loss 512 0.05 4 6 10
run b512-slow 512 0 1700 1700 1 1

# shellcheck disable=SC2086  # a word list on purpose
python3 "$HERE/check_libcoap_block2.py" "$METERSCOPE" "$WORK/image.bin" $DONE || fail "check_libcoap_block2.py"
# The same two captures paired (meterscope --vantage meter=... --vantage gateway=...) against the log.
# shellcheck disable=SC2086
python3 "$HERE/check_libcoap_pair.py" "$METERSCOPE" $DONE || fail "check_libcoap_pair.py"
