#!/bin/sh
# test.sh: install what is missing, build from scratch with -Werror, and run
# the whole test suite on every Wireshark meterscope supports:
#   1. Debian 12 (Wireshark 4.0), this machine: a normal build, then one with
#      AddressSanitizer and UndefinedBehaviorSanitizer (the plugin inside the
#      system's tshark with the sanitizer runtimes preloaded);
#   2. Debian 13 (4.4) and Debian unstable (4.6), each in a debootstrap
#      chroot made and cached by scripts/debian-chroot.sh;
#   3. the analyser's reports on every committed and real capture, the same
#      byte for byte on all three versions;
#   4. the Debian package of 4.0 and of 4.4, each installed into a fresh
#      chroot of its release, used by a normal user, and purged.
# Every part runs even when one before it failed; each prints its time. The
# last line counts the parts that passed and failed.
set -eu
cd "$(dirname "$0")/.."
scripts/install-deps.sh
jobs=$(nproc)
out=build-versions
rm -rf build-test build-sanitize "$out"
mkdir -p "$out"

passed=0
failed=0
failed_parts=""
part() {
    name=$1
    shift
    echo "== $name =="
    start=$(date +%s)
    if "$@"; then
        passed=$((passed + 1))
        verdict=passed
    else
        failed=$((failed + 1))
        failed_parts="$failed_parts $name"
        verdict=FAILED
    fi
    echo "== $name: $verdict in $(($(date +%s) - start)) s =="
}

bookworm_suite() {
    cmake -S . -B build-test -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMETERSCOPE_WERROR=ON >/dev/null &&
        cmake --build build-test -j"$jobs" &&
        (cd build-test && ctest -j"$jobs" --output-on-failure) &&
        python3 tests/versions/analyser_reports.py build-test/analyzer/meterscope "$out/bookworm/reports" &&
        cmake --build build-test --target deb >/dev/null &&
        cp build-test/meterscope_*.deb "$out/bookworm/"
}

bookworm_sanitized_suite() {
    cmake -S . -B build-sanitize -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMETERSCOPE_WERROR=ON \
          -DMETERSCOPE_SANITIZE=ON >/dev/null &&
        cmake --build build-sanitize -j"$jobs" &&
        (cd build-sanitize && ctest -j"$jobs" --output-on-failure)
}

deb_install() {
    # The package built for SUITE's Wireshark, in a fresh SUITE.
    set -- "$1" "$out/$1"/meterscope_*.deb
    tests/versions/test-deb-install.sh "$1" "$2"
}

mkdir -p "$out/bookworm"
part "Debian 12, Wireshark 4.0" bookworm_suite
part "Debian 12, Wireshark 4.0, ASan + UBSan" bookworm_sanitized_suite
part "Debian 13, Wireshark 4.4 (chroot)" tests/versions/suite-in-chroot.sh trixie "$out/trixie"
part "Debian unstable, Wireshark 4.6 (chroot)" tests/versions/suite-in-chroot.sh sid "$out/sid"
part "the same reports on 4.0, 4.4 and 4.6" python3 tests/versions/compare_reports.py \
    4.0="$out/bookworm/reports" 4.4="$out/trixie/reports" 4.6="$out/sid/reports"
part "the 4.0 package on a fresh Debian 12" deb_install bookworm
part "the 4.4 package on a fresh Debian 13" deb_install trixie

[ $failed = 0 ] || echo "failed:$failed_parts"
echo "test.sh: $passed passed, $failed failed"
[ $failed = 0 ]
