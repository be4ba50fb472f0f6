#!/bin/sh
# test_plugin_loads.sh SANDBOX PLUGIN_SO VERSION: tshark loads meterscope.so
# (no "Couldn't load plugin"), lists it as a dissector plugin of this
# version, and has the "meter" protocol.
set -eu
sandbox=$1
so=$2
version=$3
fail=0
plugins=$("$sandbox" "$so" -G plugins 2>&1)
if printf '%s\n' "$plugins" | grep -q "^meterscope.so"; then
    echo "ok    tshark -G plugins lists meterscope.so"
else
    echo "FAIL  tshark -G plugins does not list meterscope.so:"; printf '%s\n' "$plugins" | tail -5; fail=1
fi
# name, version, type, path; without plugin_describe() 4.4 says "unknown".
row=$(printf '%s\n' "$plugins" | awk -F'\t' '$1 ~ /^meterscope.so/ { gsub(/ /, "", $1); print $2 "\t" $3 }')
if [ "$row" = "$(printf '%s\tdissector' "$version")" ]; then
    echo "ok    it is a dissector plugin, version $version"
else
    echo "FAIL  tshark -G plugins says version and type '$row', not '$version dissector'"; fail=1
fi
if printf '%s\n' "$plugins" | grep -qi "couldn't load"; then
    echo "FAIL  a plugin failed to load"; fail=1
fi
protocols=$("$sandbox" "$so" -G protocols 2>/dev/null)
if printf '%s\n' "$protocols" | awk -F'\t' '$3 == "meter"' | grep -q .; then
    echo "ok    tshark -G protocols has the filter prefix meter"
else
    echo "FAIL  no protocol with filter name meter"; fail=1
fi
exit $fail
