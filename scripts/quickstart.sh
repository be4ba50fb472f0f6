#!/bin/sh
# quickstart.sh: install what is missing, build, install the plugin for this
# user, and run the main job on the bundled capture.
set -eu
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$(nproc)"
cmake --install build --component plugin
echo
echo "== meterscope captures/committed/default.pcap =="
# The generator's captures compress the meter's addresses with 6LoWPAN
# context 1; a real network's prefix goes the same way (docs/field-guide.md).
build/analyzer/meterscope --no-progress -O 6lowpan.context1:2001:db8:1::/64 --plot build/plots \
    captures/committed/default.pcap
echo "(plots: $(pwd)/build/plots/*.svg)"
