#!/bin/sh
# in-chroot.sh SUITE BENCH [ARG]...: a benchmark of tests/bench against the
# Wireshark of Debian SUITE (bookworm 4.0, trixie 4.4, sid 4.6), inside the
# cached build chroot of scripts/debian-chroot.sh: the working tree goes in
# as it is, is built there (RelWithDebInfo), and BENCH (a file name in
# tests/bench) runs with that build as its first argument and ARG after.
# Needs root, as the chroots do.
set -eu
suite=$1
bench=$2
shift 2
src=$(cd "$(dirname "$0")/../.." && pwd)
root=$("$src/scripts/debian-chroot.sh" build "$suite")
work="$root/srv/meterscope-bench"

rm -rf --one-file-system "$work"
mkdir -p "$work/main"
"$src/scripts/tree-files.sh" "$src" >"$work/files"
[ -s "$work/files" ] || { echo "$0: no files found in $src" >&2; exit 1; }
(cd "$src" && tar --null -T "$work/files" -cf -) | tar -C "$work/main" -xf -
rm -f "$work/files"
chmod -R u+w,a+rX "$work"
cat >"$work/run.sh" <<EOF
set -eu
cd /srv/meterscope-bench/main
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j$(nproc) >/dev/null
sh tests/bench/$bench build $*
EOF
"$src/scripts/debian-chroot.sh" run "$root" sh /srv/meterscope-bench/run.sh
