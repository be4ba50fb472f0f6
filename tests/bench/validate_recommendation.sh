#!/bin/sh
# validate_recommendation.sh [BUILD_DIR]: the block-size model
# (docs/recommendation.md) on the generator's SZX sweep (the field-scale
# set): from each single capture, the predicted rate of every other SZX
# against the rate measured in that SZX's own capture. Target: every
# prediction within 20%. Prints the matrix of errors; exits 0 either way
# (a measurement, not a test).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:-$here/../../build}" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
"$here/../../captures/make-field-set.sh" "$build/captures/meter-sim" "$tmp" >/dev/null
cp "$build/analyzer/meterscope" "$build/plugin/meterscope.so" "$tmp/"
chmod -R a+rwX "$tmp"
chmod 755 "$tmp"
for szx in 1 2 3 4 5 6; do
    "$here/../as-user" HOME="$tmp" "$tmp/meterscope" --plugin "$tmp/meterscope.so" --no-progress -q \
        -O 6lowpan.context1:2001:db8:1::/64 --format json "$tmp/field-szx$szx.pcap" >"$tmp/szx$szx.json"
done
python3 - "$tmp" <<'PY'
import json, sys
tmp = sys.argv[1]
caps = {}
for szx in range(1, 7):
    c = json.load(open("%s/szx%d.json" % (tmp, szx)))["captures"][0]
    caps[szx] = c
measured = {s: max(c["transfers"], key=lambda t: t["bytes"])["rate_Bps"] for s, c in caps.items()}
print("predicted / measured - 1, row: the capture the prediction is made from; column: the SZX predicted")
print("from     " + "".join("   SZX %d" % s for s in range(1, 7)))
worst = 0
for s, c in caps.items():
    pred = {p["szx"]: p["rate_Bps"] for p in c["recommendation"]["predictions"]}
    row = []
    for o in range(1, 7):
        e = pred[o] / measured[o] - 1
        if o != s:
            worst = max(worst, abs(e))
        row.append("%+7.0f%%" % (100 * e))
    print("SZX %d   " % s + " ".join(row) + "   best: SZX %d" % c["recommendation"]["best_szx"])
print("measured B/s: " + ", ".join("SZX %d %.0f" % (s, measured[s]) for s in range(1, 7)))
print("worst error across captures: %.0f%% (target: every prediction within 20%%: %s)"
      % (100 * worst, "met" if worst <= 0.2 else "NOT met"))
PY
