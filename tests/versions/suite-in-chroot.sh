#!/bin/sh
# suite-in-chroot.sh SUITE OUT_DIR: the whole test suite, without sanitizers,
# against the Wireshark of Debian SUITE (trixie: 4.4, sid: 4.6), inside the
# cached build chroot of scripts/debian-chroot.sh. The working tree goes in
# as it is (committed or not), with ../shared beside it. Leaves in OUT_DIR
# the analyser's reports (reports/, for compare_reports.py) and the Debian
# package built there. Fails when the build or any test fails. The tree and
# its build stay in the chroot until the next run, to look into a failure.
set -eu
suite=$1
out=$2
src=$(cd "$(dirname "$0")/../.." && pwd)
root=$("$src/scripts/debian-chroot.sh" build "$suite")
work="$root/srv/meterscope"

rm -rf --one-file-system "$work" "$out"
mkdir -p "$work/main" "$work/out" "$out"
# The project's files as they are now (none of build/).
"$src/scripts/tree-files.sh" "$src" >"$work/files"
[ -s "$work/files" ] || { echo "$0: no files found in $src" >&2; exit 1; }
(cd "$src" && tar --null -T "$work/files" -cf -) | tar -C "$work/main" -xf -
rm -f "$work/files"
# -H: ../shared may be a link to the folder; the chroot cannot follow it.
[ -d "$src/../shared" ] && cp -RH "$src/../shared" "$work/shared"
chmod -R u+w,a+rX "$work"

jobs=$(nproc)
cat >"$work/run.sh" <<EOF
set -eu
cd /srv/meterscope/main
tshark --version | head -n 1
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMETERSCOPE_WERROR=ON -DMETERSCOPE_REQUIRE_SHARED=ON >/dev/null
cmake --build build -j$jobs
# The real-stack test (libcoap in network namespaces) runs on the host's
# suites: the chroot has neither libcoap nor its own /run for namespaces,
# and what it checks is the analyser against a stack, not the Wireshark.
(cd build && ctest -j$jobs --timeout 900 --output-on-failure -E '^realstack[.]' -LE '^no-wireshark$')
PYTHONPATH=tests/lib python3 tests/versions/analyser_reports.py build/analyzer/meterscope /srv/meterscope/out/reports
cmake --build build --target deb >/dev/null
cp build/meterscope_*.deb /srv/meterscope/out/
EOF
rc=0
"$src/scripts/debian-chroot.sh" run "$root" sh /srv/meterscope/run.sh || rc=$?
cp -r "$work/out/." "$out/"
exit $rc
