#!/bin/sh
# test_install_personal.sh BUILD_DIR: `cmake --install --component plugin`
# run by a normal user puts meterscope.so in that user's personal plugin
# folder, where that user's tshark loads it.
set -eu
build=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
chmod 777 "$tmp"
as_user() {
    if [ "$(id -u)" = 0 ]; then
        setpriv --reuid=65534 --regid=65534 --clear-groups env HOME="$tmp" LC_ALL=C "$@"
    else
        env HOME="$tmp" LC_ALL=C "$@"
    fi
}
as_user cmake --install "$build" --component plugin >/dev/null
so=$(find "$tmp/.local/lib/wireshark/plugins" -name meterscope.so)
case "$so" in
    */plugins/4.*/epan/meterscope.so) echo "ok    installed into the personal folder: ${so#"$tmp"/}" ;;
    *) echo "FAIL  meterscope.so not in ~/.local/lib/wireshark/plugins/<version>/epan ($so)"; exit 1 ;;
esac
# An empty WIRESHARK_PLUGIN_DIR hides any global copy, which would win.
mkdir -p "$tmp/no-global"
if as_user env WIRESHARK_PLUGIN_DIR="$tmp/no-global" tshark -G plugins 2>/dev/null | grep -q "^meterscope.so.*$tmp"; then
    echo "ok    that user's tshark loads it from there"
else
    echo "FAIL  that user's tshark does not load it"; exit 1
fi
