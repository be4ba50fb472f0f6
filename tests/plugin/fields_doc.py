#!/usr/bin/env python3
"""fields_doc.py SANDBOX PLUGIN_SO [--check FILE | --write FILE]: docs/fields.md
from `tshark -G fields` and `tshark -G defaultprefs` with the plugin loaded, so the
list of filterable fields cannot drift from the code. --check fails when FILE
differs from what the plugin registers now (rewrite it with --write)."""
import re
import subprocess
import sys


def tshark_g(sandbox, so, what):
    out = subprocess.run([sandbox, so, "-G", what], check=True, capture_output=True,
                         text=True).stdout
    return [line.split("\t") for line in out.splitlines()]


def render(sandbox, so):
    lines = ["# meterscope fields, expert infos and preferences", "",
             "Generated from `tshark -G fields` and `tshark -G defaultprefs` with the plugin loaded",
             "(`cmake --build build --target fields-doc`); a test fails when this file is stale.",
             "Expert infos are filterable too: they are the `FT_NONE` entries.", "",
             "## Fields", "", "| filter | name | type | description |", "|---|---|---|---|"]
    for row in tshark_g(sandbox, so, "fields"):
        if len(row) >= 5 and row[0] == "F" and (row[2] == "meter" or row[2].startswith("meter.")):
            blurb = row[7] if len(row) > 7 else ""
            lines.append("| `%s` | %s | %s | %s |" % (row[2], row[1], row[3], blurb.replace("|", "\\|")))
    lines += ["", "## Preferences (`-o NAME:VALUE`)", "", "```"]
    prefs = subprocess.run([sandbox, so, "-G", "defaultprefs"], check=True, capture_output=True,
                           text=True).stdout.splitlines()
    block = []
    for line in prefs:
        # 4.0 words a boolean's values "TRUE or FALSE", 4.4 and later "true or false".
        line = line.replace("TRUE or FALSE", "true or false")
        m = re.match(r"^#?([A-Za-z0-9_.-]+): ", line)
        if m:
            if m.group(1).startswith("meter."):
                lines += block + [line, ""]
            block = []
        elif line.startswith("# Equivalently, one of: ") and block and block[-1].startswith("# One of: "):
            # 4.6 lists an enum's names, then "Equivalently" its descriptions; 4.0 and 4.4 only
            # the descriptions.
            block[-1] = "# One of: " + line[len("# Equivalently, one of: "):]
        elif line.startswith("#") and not line.startswith("####"):
            block.append(line)
        else:
            block = []
    lines += ["```"]
    return "\n".join(lines) + "\n"


def main():
    sandbox, so, mode, path = sys.argv[1:5]
    text = render(sandbox, so)
    if mode == "--write":
        with open(path, "w") as f:
            f.write(text)
        return 0
    with open(path) as f:
        current = f.read()
    if current != text:
        print("FAIL  %s is stale: run `cmake --build build --target fields-doc`" % path)
        return 1
    print("ok    %s lists every meter field and expert info (%d lines)" % (path, text.count("\n")))
    return 0


if __name__ == "__main__":
    sys.exit(main())
