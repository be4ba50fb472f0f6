#!/bin/sh
# test-deb-install.sh SUITE DEB: the package as a field engineer gets it. In a
# fresh Debian SUITE chroot (a pristine copy of the cached base, thrown away
# afterwards): `apt-get install ./DEB` pulls in its Wireshark; tshark lists
# the plugin as a dissector; a normal user runs the main job on the bundled
# capture and the report is held against that capture's truth; the manual
# page is there; `apt-get purge` then leaves none of the package's files.
set -eu
suite=$1
deb=$2
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
[ -f "$deb" ] || { echo "FAIL  no package $deb"; exit 1; }
tmp=$(mktemp -d /var/tmp/meterscope-deb-test.XXXXXX)
trap 'rm -rf --one-file-system "$tmp"' EXIT
trap 'rm -rf --one-file-system "$tmp"; exit 130' INT
trap 'rm -rf --one-file-system "$tmp"; exit 143' TERM
root="$tmp/root"
"$src/scripts/debian-chroot.sh" clean "$suite" "$root"
cp "$deb" "$root/tmp/"
name=$(basename "$deb")

cat >"$root/tmp/test.sh" <<EOF
set -eu
export DEBIAN_FRONTEND=noninteractive
cd /tmp
dpkg-deb -f ./$name Depends >/tmp/depends
apt-get update -qq
apt-get install -y -qq --no-install-recommends ./$name >/tmp/apt.log 2>&1 || { tail -n 30 /tmp/apt.log; exit 1; }
dpkg -L meterscope >/tmp/files
tshark -G plugins >/tmp/plugins
useradd --create-home engineer
cd /home/engineer
setpriv --reuid=engineer --regid=engineer --init-groups env HOME=/home/engineer \
    meterscope --no-progress --format json -O 6lowpan.context1:2001:db8:1::/64 \
    /usr/share/meterscope/captures/default.pcap >/tmp/report.json
cp /usr/share/meterscope/captures/default.pcap.truth.json /tmp/truth.json
meterscope --version >/tmp/version
apt-get purge -y -qq meterscope >/tmp/purge.log 2>&1
left=""
while read -r f; do
    [ -f "\$f" ] && left="\$left \$f"
done </tmp/files
echo "\$left" >/tmp/left
EOF
rc=0
"$src/scripts/debian-chroot.sh" run "$root" sh /tmp/test.sh || rc=$?
if [ $rc != 0 ]; then
    echo "FAIL  $name on $suite: installing or running it failed (exit $rc)"
    exit 1
fi
PYTHONPATH="$here/../lib" python3 "$here/check_deb_install.py" "$root/tmp" "$name" "$suite"
