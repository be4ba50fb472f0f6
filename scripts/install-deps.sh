#!/bin/sh
# install-deps.sh [--tests] [--gui]: installs the Debian packages meterscope
# needs that are missing (apt-get; sudo when not root), on Debian 12, 13 or
# unstable. Safe to run again.
#   (none)   building, the plugin, the analyser and the generator;
#   --tests  what the test suite needs besides (compressors the analyser
#            must read through, a locale with a decimal comma);
#   --gui    the Wireshark GUI under Xvfb, and what reads its screenshots
#            back (the GUI test; scripts/test.sh passes it on the host).
set -eu
PACKAGES="gcc make cmake pkg-config libglib2.0-dev libpcap-dev libgcrypt20-dev
libjson-glib-dev libwireshark-dev wireshark-dev tshark python3 util-linux time
dpkg-dev file debootstrap libcoap3-bin iproute2 tmux"
TEST_PACKAGES="zstd lz4 locales"
GUI_PACKAGES="wireshark xvfb xdotool imagemagick tesseract-ocr tesseract-ocr-eng"
# The locale tests/analyzer-unit/test_svg_plot.c writes plots in.
COMMA_LOCALE=de_DE.UTF-8
tests=false
for arg; do
    case $arg in
    --tests) PACKAGES="$PACKAGES $TEST_PACKAGES"; tests=true ;;
    --gui) PACKAGES="$PACKAGES $GUI_PACKAGES" ;;
    *) echo "install-deps: unknown option $arg (--tests, --gui)" >&2; exit 1 ;;
    esac
done
if [ "$(id -u)" = 0 ]; then sudo=""; else sudo="sudo"; fi
missing=""
for p in $PACKAGES; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
    echo "install-deps: installing$missing"
    # tshark's package asks whether non-root users may capture; take its default.
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq
    # shellcheck disable=SC2086  # a word list on purpose
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing
fi
if $tests && ! locale -a 2>/dev/null | grep -qix "$(echo "$COMMA_LOCALE" | sed 's/UTF-8/utf8/')"; then
    echo "install-deps: generating the $COMMA_LOCALE locale"
    $sudo localedef -i "${COMMA_LOCALE%%.*}" -c -f UTF-8 "$COMMA_LOCALE"
fi
