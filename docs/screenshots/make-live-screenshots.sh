#!/bin/sh
# make-live-screenshots.sh PLUGIN_SO [OUT_DIR]: the "Meter block-wise
# transfers" dialog during a live capture, in the Wireshark GUI under Xvfb
# with the plugin loaded. Wireshark captures from a FIFO that
# tests/lib/pcap_replay.py feeds with default.pcap; the replayer stops after
# frame PAUSE_AT (1000, in the middle of the firmware download) and goes on
# only when told. Writes into OUT_DIR (default: this folder):
#   ota-live-partial.png  the dialog opened mid-capture, in its default size
#   ota-live-applied.png  the same dialog after the rest of the capture came
#                         and Apply was pressed
#   ota-live-goto.png     the firmware transfer's "First frame" typed into
#                         Go to Packet: that frame selected
# and, for tests/plugin/test_gui_live_table.py, the dialog alone at each of
# those moments and just before Apply (dialog-partial.png, dialog-waited.png,
# dialog-applied.png) and the packet details after Go to Packet
# (details-goto.png), unreduced.
# Needs: wireshark (Qt) xvfb xdotool imagemagick, installed when missing;
# with METERSCOPE_NO_INSTALL=1 it exits 77 instead. METERSCOPE_DISPLAY=:N
# uses an X server already running instead of Xvfb.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$here/../..
so=$1
out=${2:-$here}
pause_at=${PAUSE_AT:-1000}
tools="wireshark:wireshark-qt xdotool:xdotool import:imagemagick capinfos:wireshark-common"
[ -n "${METERSCOPE_DISPLAY:-}" ] || tools="$tools Xvfb:xvfb"
for tool in $tools; do
    command -v "${tool%%:*}" >/dev/null 2>&1 && continue
    if [ -n "${METERSCOPE_NO_INSTALL:-}" ]; then
        echo "make-live-screenshots: no ${tool%%:*} (Debian package ${tool#*:})" >&2
        exit 77
    fi
    [ "$(id -u)" = 0 ] && s="" || s=sudo
    $s env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${tool#*:}"
done
tmp=$(mktemp -d)
ws_minor=$("$root/tests/tshark-minor" tshark)
pids=""
cleanup() {
    for p in $pids; do kill "$p" 2>/dev/null || true; done
    rm -rf "$tmp"
}
trap cleanup EXIT INT TERM
die() { echo "make-live-screenshots: $*" >&2; exit 1; }

# until SECONDS COMMAND...: polls COMMAND (every 0.2 s) until it succeeds.
until_ok() {
    n=$(($1 * 5))
    shift
    while ! "$@" >/dev/null 2>&1; do
        n=$((n - 1))
        [ "$n" -gt 0 ] || return 1
        sleep 0.2
    done
}
if [ -n "${METERSCOPE_DISPLAY:-}" ]; then
    display=$METERSCOPE_DISPLAY
else
    # A free display: Xvfb picks it and writes its number.
    Xvfb -displayfd 5 -screen 0 1500x1000x24 -ac 5>"$tmp/display" >/dev/null 2>&1 &
    pids="$pids $!"
    until_ok 30 grep -q . "$tmp/display" || die "Xvfb did not start"
    display=:$(cat "$tmp/display")
fi
mkdir -p "$tmp/plugins/$ws_minor/epan" "$tmp/home/.config/wireshark"
printf 'gui.geometry_main_x: 0\ngui.geometry_main_y: 0\ngui.geometry_main_width: 1500\ngui.geometry_main_height: 1000\n' \
    > "$tmp/home/.config/wireshark/recent_common"
cp "$so" "$tmp/plugins/$ws_minor/epan/"
cp "$root/captures/committed/default.pcap" "$tmp/"
mkfifo "$tmp/capture" "$tmp/go"
chmod -R a+rwX "$tmp"
x() { DISPLAY=$display xdotool "$@"; }
window_of() { x search --onlyvisible --name "$1" | head -n 1 | grep .; }
# The frames dumpcap has written to the capture's temporary file.
captured() { capinfos -c -M "$tmp"/home/wireshark_capture*.pcapng 2>/dev/null | awk '/Number of packets/ { print $NF }'; }
has_captured() { [ "$(captured)" = "$1" ]; }

# The replayer reads its go-aheads from the FIFO "go"; this shell holds it
# open (read-write, so the open does not wait for a reader).
exec 3<>"$tmp/go"
python3 "$root/tests/lib/pcap_replay.py" "$tmp/default.pcap" "$tmp/capture" --pause-after "$pause_at" --hold \
    <"$tmp/go" 2>"$tmp/replay.log" &
pids="$pids $!"
"$root/tests/as-user" DISPLAY="$display" HOME="$tmp/home" TMPDIR="$tmp/home" WIRESHARK_PLUGIN_DIR="$tmp/plugins" \
    wireshark -k -i "$tmp/capture" -o 6lowpan.context1:2001:db8:1::/64 -o statistics.update_interval:100 \
    >"$tmp/wireshark.log" 2>&1 &
pids="$pids $!"
until_ok 60 window_of "Capturing from" || die "no capture window (see $tmp/wireshark.log)"
win=$(window_of "Capturing from")
until_ok 60 grep -q "paused $pause_at" "$tmp/replay.log" || die "the replayer did not reach frame $pause_at"
until_ok 30 has_captured "$pause_at" || die "dumpcap did not write $pause_at frames"
# Let the GUI's packet list catch up with the file: until the screen stops
# changing (taken whole: Qt 6 windows give a blank image by their own id).
same_twice() {
    DISPLAY=$display import -window root "$tmp/a.png"
    sleep 0.5
    DISPLAY=$display import -window root "$tmp/b.png"
    cmp -s "$tmp/a.png" "$tmp/b.png"
}
until_ok 30 same_twice || die "the main window never settled"

# Statistics -> Meter block-wise transfers: click the menu (no window manager
# gives the menu bar keyboard focus), walk down to the entry.
x mousemove 325 10 click 1
until_ok 10 window_of "^Statistics" || true
# The entry's place in the menu: 4.6 added "Plots" above it.
case $ws_minor in 4.[0-5]) entry=10 ;; *) entry=11 ;; esac
entry=${OTA_MENU_DOWNS:-$entry}
downs=""
for _ in $(seq 1 "$entry"); do downs="$downs Down"; done
# shellcheck disable=SC2086
x key --delay 100 $downs Return
until_ok 30 window_of "Meter block-wise transfers" ||
    die "Statistics -> Meter block-wise transfers did not open (entry $entry of the menu? set OTA_MENU_DOWNS)"
dlg=$(window_of "Meter block-wise transfers")
# Its default size; only moved, over the packet details.
x windowmove "$dlg" 880 500
# The dialog as the screen shows it (Qt 6 windows, 4.4 and later, give a
# blank image when taken by their own id).
dialog_image() {
    eval "$(x getwindowgeometry --shell "$dlg")"
    DISPLAY=$display import -window root -crop "${WIDTH}x$HEIGHT+$X+$Y" +repage "$1"
}
dialog_settled() {
    dialog_image "$tmp/a.png"
    sleep 0.5
    dialog_image "$tmp/b.png"
    cmp -s "$tmp/a.png" "$tmp/b.png"
}
until_ok 30 dialog_settled || die "the dialog never settled"
shot() {
    DISPLAY=$display import -window root "$tmp/$1.png"
    convert "$tmp/$1.png" -crop 1500x1000+0+0 +repage -colors 64 PNG8:"$out/$1.png"
}
dialog_shot() { dialog_image "$out/dialog-$1.png"; }
shot ota-live-partial
dialog_shot partial

# The rest of the capture; the replayer then holds the FIFO open, so the
# capture is still running.
echo go >&3
until_ok 60 grep -q holding "$tmp/replay.log" || die "the replayer did not finish"
total=$(capinfos -c -M "$tmp/default.pcap" | awk '/Number of packets/ { print $NF }')
until_ok 30 has_captured "$total" || die "dumpcap did not write all $total frames"
until_ok 30 same_twice || die "the main window never settled"
# Wireshark drew its taps several times meanwhile (every 100 ms): a dialog
# that still listened would show the new numbers by now.
dialog_shot waited
if cmp -s "$out/dialog-partial.png" "$out/dialog-waited.png"; then
    echo "make-live-screenshots: the dialog did not change by itself while the capture went on"
fi
# Apply: the dialog's button, bottom right of its default size.
eval "$(x getwindowgeometry --shell "$dlg")"
x mousemove $((X + WIDTH - 52)) $((Y + HEIGHT - 56)) click 1
until_ok 30 dialog_settled || die "the dialog never settled"
shot ota-live-applied
dialog_shot applied

# Go to Packet with the firmware transfer's first frame, which the table's
# "First frame" column gives (here read from tshark's text of the table).
first=$("$root/tests/tshark-sandbox" "$so" -r "$tmp/default.pcap" -o 6lowpan.context1:2001:db8:1::/64 -q \
    -z meter,ota_table | awk -F' [|]' '/^Transfer [|]/ { for (i = 1; i <= NF; i++) if ($i == "First frame") c = i }
                                       /firmware/ && c { print $c + 0; exit }')
if [ -z "$first" ]; then
    echo go >&3
    die "the table has no First frame for the firmware transfer"
fi
x windowactivate --sync "$win" 2>/dev/null || x windowfocus "$win"
x mousemove 700 150 click 1 key ctrl+g
until_ok 30 same_twice || die "the main window never settled"
x type --delay 50 "$first"
x key Return
until_ok 30 same_twice || die "the main window never settled"
shot ota-live-goto
# The packet details, under the packet list.
DISPLAY=$display import -window root -crop 750x150+0+525 +repage "$out/details-goto.png"
echo go >&3
echo "make-live-screenshots: wrote $out/ota-live-partial.png ota-live-applied.png ota-live-goto.png (first frame $first)"
