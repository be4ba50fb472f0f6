#!/bin/sh
# make-committed.sh METER_SIM OUTDIR: writes every capture of committed.list.
set -eu
sim=$1
out=$2
list=$(dirname "$0")/committed.list
mkdir -p "$out"
grep -v '^#' "$list" | grep -v '^$' | while read -r name args; do
    # shellcheck disable=SC2086  # args is a word list on purpose
    "$sim" $args --quiet --output "$out/$name.pcap"
done
