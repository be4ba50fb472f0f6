#!/bin/sh
# make-screenshots.sh PLUGIN_SO: regenerates the GUI screenshots in this
# folder: the Wireshark 4.0 GUI under Xvfb with the plugin loaded, one packet
# selected and its tree expanded, so the GUI path is seen to work, and
# Statistics -> Meter block-wise transfers over two-meters.pcap.
# Needs: wireshark-qt xvfb xdotool imagemagick (installed when missing).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$here/../..
so=$1
for p in wireshark-qt xvfb xdotool imagemagick; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
        { [ "$(id -u)" = 0 ] && s="" || s=sudo; $s env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$p"; }
done
tmp=$(mktemp -d)
# The plugin folder is named for the Wireshark minor version (4.0, 4.4, 4.6).
ws_minor=$("$here/../../tests/tshark-minor" tshark)
display=:$((90 + $$ % 9))
# Wider than the shots of the packet tree: the statistics table has 23 columns.
wide=2600
Xvfb "$display" -screen 0 ${wide}x1100x24 -ac >/dev/null 2>&1 &
xvfb=$!
trap 'kill $xvfb 2>/dev/null; rm -rf "$tmp"' EXIT INT TERM
mkdir -p "$tmp/plugins/$ws_minor/epan" "$tmp/home/.config/wireshark"
# Window geometry and a short packet list, so the packet details get the room.
printf 'gui.geometry_main_x: 0\ngui.geometry_main_y: 0\ngui.geometry_main_width: 1500\ngui.geometry_main_height: 1100\n' \
    > "$tmp/home/.config/wireshark/recent_common"
printf 'gui.geometry_main_upper_pane: 230\n' > "$tmp/home/.config/wireshark/recent"
cp "$so" "$tmp/plugins/$ws_minor/epan/"
cp "$root"/captures/committed/*.pcap "$tmp/"
chmod -R a+rwX "$tmp"
sleep 2

run() {
    "$root/tests/as-user" "$@"
}

# window NAME: the id of the first visible window whose title contains NAME.
window() {
    w=""
    for _ in $(seq 1 60); do
        w=$(DISPLAY=$display xdotool search --onlyvisible --name "$1" 2>/dev/null | head -n 1 || true)
        [ -n "$w" ] && break
        sleep 0.5
    done
    echo "$w"
}

# shot NAME CAPTURE FRAME: open CAPTURE at FRAME, expand the whole tree,
# scroll the details to their end (where the meter subtree is), screenshot.
shot() {
    run DISPLAY="$display" HOME="$tmp/home" WIRESHARK_PLUGIN_DIR="$tmp/plugins" \
        wireshark -r "$tmp/$2" -g "$3" -o 6lowpan.context1:2001:db8:1::/64 \
        -o gui.layout_content_3:NONE >/dev/null 2>&1 &
    pid=$!
    win=$(window "$2")
    [ -n "$win" ] || { echo "make-screenshots: no Wireshark window for $2" >&2; exit 1; }
    sleep 3
    DISPLAY=$display xdotool windowmove "$win" 0 0 windowsize "$win" 1500 1100
    sleep 2
    # Click into the packet details (below the packet list), expand all, go to the end.
    DISPLAY=$display xdotool mousemove 700 500 click 1
    DISPLAY=$display xdotool key ctrl+Right
    sleep 1
    DISPLAY=$display xdotool key End
    sleep 1
    DISPLAY=$display import -window root "$tmp/$1.png"
    # 64 colours are plenty for a GUI and keep the committed files small.
    convert "$tmp/$1.png" -crop 1500x1100+0+0 -colors 64 PNG8:"$here/$1.png"
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
}

# stats_shot NAME CAPTURE: open CAPTURE, choose Statistics -> Meter
# block-wise transfers with the keyboard (OTA_MENU_DOWNS entries down the
# menu), stretch the dialog over the lower part of the window, screenshot.
stats_shot() {
    run DISPLAY="$display" HOME="$tmp/home" WIRESHARK_PLUGIN_DIR="$tmp/plugins" \
        wireshark -r "$tmp/$2" -o 6lowpan.context1:2001:db8:1::/64 >/dev/null 2>&1 &
    pid=$!
    win=$(window "$2")
    [ -n "$win" ] || { echo "make-screenshots: no Wireshark window for $2" >&2; exit 1; }
    sleep 3
    DISPLAY=$display xdotool windowmove "$win" 0 0 windowsize "$win" "$wide" 1100
    sleep 2
    # Open the Statistics menu (no window manager gives keyboard focus to the
    # menu bar, so click it), walk down to the entry, choose it.
    DISPLAY=$display xdotool mousemove 325 10 click 1
    sleep 1
    downs=""
    for _ in $(seq 1 "${OTA_MENU_DOWNS:-10}"); do downs="$downs Down"; done
    # shellcheck disable=SC2086
    DISPLAY=$display xdotool key --delay 100 $downs Return
    dlg=$(window "Meter block-wise transfers")
    [ -n "$dlg" ] || { echo "make-screenshots: Statistics -> Meter block-wise transfers did not open" \
        "(entry ${OTA_MENU_DOWNS:-10} of the menu? set OTA_MENU_DOWNS)" >&2; exit 1; }
    sleep 3
    DISPLAY=$display xdotool windowmove "$dlg" 0 640 windowsize "$dlg" "$wide" 320
    sleep 2
    DISPLAY=$display import -window root "$tmp/$1.png"
    convert "$tmp/$1.png" -crop "${wide}x960+0+0" +repage -colors 64 PNG8:"$here/$1.png"
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
}
shot config-blob default.pcap "${CONFIG_FRAME:-16}"
shot history-record default.pcap "${HISTORY_FRAME:-51}"
shot firmware-header default.pcap "${FIRMWARE_FRAME:-476}"
stats_shot ota-statistics two-meters.pcap
echo "make-screenshots: wrote $here/config-blob.png history-record.png firmware-header.png ota-statistics.png"
