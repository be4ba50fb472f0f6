#!/bin/sh
# test_install_personal.sh INSTALL_SCRIPT PLUGIN_SO GLOBAL_DIR: the plugin's
# install step run by a normal user puts meterscope.so in that user's
# personal plugin folder, where that user's tshark loads it. (The install
# step is plugin/install-plugin.cmake; it runs here on copies, so the test
# works wherever the tree is, even where "nobody" cannot read it.)
set -eu
script=$1
so=$2
global=$3
version=$(basename "$global")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
cp "$script" "$so" "$tmp/"
chmod -R a+rwX "$tmp"
chmod 777 "$tmp"
as_user() {
    "$(dirname "$0")/../as-user" HOME="$tmp" "$@"
}
as_user cmake -DMETERSCOPE_SO="$tmp/$(basename "$so")" -DWS_GLOBAL_PLUGIN_DIR="$global" \
    -DWS_PLUGIN_VERSION_DIR="$version" -P "$tmp/$(basename "$script")" >/dev/null
found=$(find "$tmp/.local" -name meterscope.so 2>/dev/null || true)
if [ "$found" = "$tmp/.local/lib/wireshark/plugins/$version/epan/meterscope.so" ]; then
    echo "ok    installed into the personal folder ~/.local/lib/wireshark/plugins/$version/epan"
else
    echo "FAIL  meterscope.so not in the personal plugin folder (found: $found)"; exit 1
fi
# An empty WIRESHARK_PLUGIN_DIR hides any global copy, which would win.
mkdir -p "$tmp/no-global"
if as_user env WIRESHARK_PLUGIN_DIR="$tmp/no-global" tshark -G plugins 2>/dev/null | grep -q "^meterscope.so.*$tmp"; then
    echo "ok    that user's tshark loads it from there"
else
    echo "FAIL  that user's tshark does not load it"; exit 1
fi
