#!/bin/sh
# make-field-set.sh METER_SIM OUTDIR: the field-scale set, a 512 kB image
# downloaded at SZX 1..6 over a ~5% bursty link (too big to commit).
set -eu
sim=$1
out=$2
mkdir -p "$out"
for szx in 1 2 3 4 5 6; do
    "$sim" --scenario "field-szx$szx" --seed "$szx" --output "$out/field-szx$szx.pcap"
done
