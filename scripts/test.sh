#!/bin/sh
# test.sh: install what is missing, build from scratch with -Werror, and run
# the whole test suite twice: a normal build, then one with AddressSanitizer
# and UndefinedBehaviorSanitizer (the plugin inside the system's tshark with
# the sanitizer runtimes preloaded). The last lines are ctest's summary.
set -eu
cd "$(dirname "$0")/.."
scripts/install-deps.sh
jobs=$(nproc)
rm -rf build-test build-sanitize
cmake -S . -B build-test -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMETERSCOPE_WERROR=ON >/dev/null
cmake --build build-test -j"$jobs"
(cd build-test && ctest -j"$jobs" --output-on-failure)
echo "== the same suite under ASan + UBSan =="
cmake -S . -B build-sanitize -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMETERSCOPE_WERROR=ON -DMETERSCOPE_SANITIZE=ON >/dev/null
cmake --build build-sanitize -j"$jobs"
cd build-sanitize
ctest -j"$jobs" --output-on-failure
