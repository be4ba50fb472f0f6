#!/bin/sh
# test.sh: install what is missing, build from scratch with -Werror, and run
# the whole test suite on every Wireshark meterscope supports:
#   1. this machine's Wireshark: a normal build, then one with AddressSanitizer
#      and UndefinedBehaviorSanitizer (the plugin inside the system's tshark
#      with the sanitizer runtimes preloaded);
#   2. the other two of Debian 12 (Wireshark 4.0), Debian 13 (4.4) and Debian
#      unstable (4.6), each in a debootstrap chroot made and cached by
#      scripts/debian-chroot.sh;
#   3. the analyser's reports on every committed and real capture, the same
#      byte for byte on all three versions;
#   4. each version's Debian package installed into a fresh chroot of its
#      release, used by a normal user, and purged.
# Every part runs even when one before it failed; each prints its time. The
# last line counts the parts that passed and failed.
set -eu
cd "$(dirname "$0")/.."
scripts/install-deps.sh --tests --gui
jobs=$(nproc)
out=build-versions
rm -rf build-test build-sanitize "$out"
mkdir -p "$out"

passed=0
failed=0
failed_parts=""
n_parts=0
# part NAME COMMAND...: one part of the suite, its output also kept in
# $out/part-N.log for the list of skipped tests at the end.
part() {
    name=$1
    shift
    n_parts=$((n_parts + 1))
    log="$out/part-$n_parts.log"
    echo "== $name =="
    echo "$name" >"$log.name"
    start=$(date +%s)
    # The part's status through the pipe: a file, as sh has no pipefail.
    { st=0; "$@" || st=$?; echo $st >"$log.status"; } 2>&1 | tee "$log"
    if [ "$(cat "$log.status")" = 0 ]; then
        passed=$((passed + 1))
        verdict=passed
    else
        failed=$((failed + 1))
        failed_parts="$failed_parts $name"
        verdict=FAILED
    fi
    echo "== $name: $verdict in $(($(date +%s) - start)) s =="
}

# The tests ctest skipped in each part (each one said why in its output):
# "NAME (PART)", comma-separated.
skipped_tests() {
    for log in "$out"/part-*.log; do
        [ -f "$log" ] || continue
        name=$(cat "$log.name")
        sed -n 's/^[[:space:]]*[0-9]* - \(.*\) (Skipped)$/\1/p' "$log" | sed "s/\$/ ($name)/"
    done | paste -s -d, - | sed 's/,/, /g'
}

host_suite() {
    cmake -S . -B build-test -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMETERSCOPE_WERROR=ON -DMETERSCOPE_REQUIRE_SHARED=ON >/dev/null &&
        cmake --build build-test -j"$jobs" &&
        (cd build-test && ctest -j"$jobs" --timeout 900 --output-on-failure) &&
        mkdir -p "$out/$1" &&
        PYTHONPATH=tests/lib python3 tests/versions/analyser_reports.py build-test/analyzer/meterscope "$out/$1/reports" &&
        cmake --build build-test --target deb >/dev/null &&
        cp build-test/meterscope_*.deb "$out/$1/"
}

host_sanitized_suite() {
    cmake -S . -B build-sanitize -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMETERSCOPE_WERROR=ON -DMETERSCOPE_REQUIRE_SHARED=ON \
          -DMETERSCOPE_SANITIZE=ON >/dev/null &&
        cmake --build build-sanitize -j"$jobs" &&
        (cd build-sanitize &&
            echo "left out here (label repeats, run in every other part):" \
                 "$(ctest -N -L '^repeats$' | sed -n 's/^ *Test *#[0-9]*: //p' | paste -s -d' ' -)" &&
            ctest -j"$jobs" --timeout 900 --output-on-failure -LE '^repeats$')
}

deb_install() {
    # The package built for SUITE's Wireshark, in a fresh SUITE.
    set -- "$1" "$out/$1"/meterscope_*.deb
    tests/versions/test-deb-install.sh "$1" "$2"
}

# The Debian release each supported Wireshark comes with.
suites="bookworm:4.0:Debian-12 trixie:4.4:Debian-13 sid:4.6:Debian-unstable"
here=$(tests/tshark-minor tshark)
case " $suites " in
    *":$here:"*) ;;
    *) echo "test.sh: this machine's Wireshark is $here; the suite knows 4.0, 4.4 and 4.6" >&2; exit 1 ;;
esac
# SUITE:X.Y:Release-name into $suite, $minor and $release.
parse() {
    suite=${1%%:*}
    minor=${1#*:}
    minor=${minor%%:*}
    release=$(echo "${1##*:}" | tr - ' ')
}
compare=""
for s in $suites; do
    parse "$s"
    if [ "$minor" = "$here" ]; then
        part "$release, Wireshark $minor" host_suite "$suite"
        part "$release, Wireshark $minor, ASan + UBSan" host_sanitized_suite
    else
        part "$release, Wireshark $minor (chroot)" tests/versions/suite-in-chroot.sh "$suite" "$out/$suite"
    fi
    compare="$compare $minor=$out/$suite/reports"
done
# shellcheck disable=SC2086  # one argument per version
part "the same reports on 4.0, 4.4 and 4.6" python3 tests/versions/compare_reports.py $compare
for s in $suites; do
    parse "$s"
    part "the $minor package on a fresh $release" deb_install "$suite"
done

[ $failed = 0 ] || echo "failed:$failed_parts"
skipped=$(skipped_tests)
n_skipped=$(printf '%s' "$skipped" | awk -F', ' 'NF { print NF; exit } END { if (!NR) print 0 }')
echo "test.sh: $passed passed, $failed failed, $n_skipped skipped${skipped:+: $skipped}"
[ $failed = 0 ]
