#!/bin/sh
# test.sh: install what is missing, build from scratch with -Werror, and run
# the whole test suite. The last lines are ctest's summary.
set -eu
cd "$(dirname "$0")/.."
scripts/install-deps.sh
rm -rf build-test
cmake -S . -B build-test -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMETERSCOPE_WERROR=ON >/dev/null
cmake --build build-test -j"$(nproc)"
cd build-test
ctest -j"$(nproc)" --output-on-failure
