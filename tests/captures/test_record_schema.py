#!/usr/bin/env python3
"""test_record_schema.py RECORD_DOC: the Python tests' reader of `-z
meter,ota,tsv` (tshark_view.ota_tsv) takes its columns from
common/transfer_record.h by reading its X(...) lines; they must be the
columns the C tables built from the same lines have (record_doc --json
prints those), so a line the reader cannot parse fails here."""
import json
import subprocess
import sys

import tshark_view as tv
from checks import Checks


def main():
    check = Checks()
    want = json.loads(subprocess.run([sys.argv[1], "--json"], check=True, capture_output=True, text=True).stdout)
    got = tv.record_schema()
    check(got.get("version") == want["version"], "version %s" % want["version"])
    for tag in ("T", "P", "C"):
        w = [tuple(c) for c in want[tag]]
        check(got.get(tag) == w, "%s: %d columns, names, types and optional as in C%s"
              % (tag, len(w), "" if got.get(tag) == w else ": the reader has %s, C %s" % (got.get(tag), w)))
    return check.summary("record schema")


if __name__ == "__main__":
    sys.exit(main())
