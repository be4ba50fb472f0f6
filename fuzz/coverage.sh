#!/bin/sh
# coverage.sh CORPUS_DIR [OUT_DIR]: line and branch coverage of the plugin's
# decoders and the analyser's record reader reached by the fuzz corpora (CORPUS_DIR/TARGET/, e.g. the
# build-fuzz/fuzz/corpus a fuzz-run grew, plus the committed seeds), with
# clang's source-based coverage (llvm-profdata, llvm-cov). Builds its own
# instrumented copy of the fuzz targets in OUT_DIR (default build-fuzz-cov).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
corpus=$(cd "$1" && pwd)
out=${2:-$here/../build-fuzz-cov}
CC=clang CFLAGS="-fprofile-instr-generate -fcoverage-mapping" \
    cmake -S "$here/.." -B "$out" -DMETERSCOPE_FUZZ=ON >/dev/null
targets="senml mcuboot coap_view link ota_track config tsv_reader"
for t in $targets; do
    cmake --build "$out" -j"$(nproc)" --target "fuzz_$t" >/dev/null
done
rm -f "$out"/*.profraw
objects=""
for t in $targets; do
    # -runs=0: every input once, no mutation.
    LLVM_PROFILE_FILE="$out/$t.profraw" "$out/fuzz/fuzz_$t" -runs=0 "$corpus/$t" "$here/corpus/$t" \
        >/dev/null 2>&1
    # The first binary is llvm-cov's positional argument, the others -object.
    if [ -z "$objects" ]; then objects="$out/fuzz/fuzz_$t"; else objects="$objects -object $out/fuzz/fuzz_$t"; fi
done
llvm-profdata merge -sparse "$out"/*.profraw -o "$out/fuzz.profdata"
# shellcheck disable=SC2086  # a word list on purpose
llvm-cov report $objects -instr-profile="$out/fuzz.profdata" \
    "$here/../plugin/core/senml.c" "$here/../plugin/core/mcuboot.c" "$here/../plugin/core/coap_view.c" \
    "$here/../plugin/core/lowpan_view.c" "$here/../plugin/core/wpan_view.c" "$here"/../plugin/core/ota_track_*.c \
    "$here/../plugin/core/meter_cfg.c" "$here/../analyzer/transfer.c" "$here/../common/transfer_record.c"
