#!/bin/sh
# install-deps.sh: installs the Debian packages meterscope needs that are
# missing (apt-get; sudo when not root), on Debian 12, 13 or unstable.
# Safe to run again.
set -eu
PACKAGES="gcc make cmake pkg-config libglib2.0-dev libpcap-dev libgcrypt20-dev
libjson-glib-dev libwireshark-dev wireshark-dev tshark python3 util-linux time
dpkg-dev file debootstrap libcoap3-bin iproute2 tmux"
missing=""
for p in $PACKAGES; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "install-deps: installing$missing"
if [ "$(id -u)" = 0 ]; then sudo=""; else sudo="sudo"; fi
# tshark's package asks whether non-root users may capture; take its default.
$sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq
# shellcheck disable=SC2086  # a word list on purpose
$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing
