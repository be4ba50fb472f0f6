#!/usr/bin/env python3
"""test_doc_filters.py SANDBOX PLUGIN_SO CAPTURE DOC...: every display filter the
documents give (`-Y '...'` in README.md and the docs, and the filter column
of the field guide's tables) is one tshark with the plugin accepts."""
import re
import subprocess
import sys


def filters(path):
    text = open(path).read()
    found = re.findall(r"-Y '([^']+)'", text)
    # Table cells escape "|" as "\|" (Markdown).
    found += [f.replace("\\|", "|") for f in re.findall(r"^\| `([^`]*(?:meter|coap|wpan)\.[^`]*)` \|", text, re.M)
              if re.search(r"[=!<>&|]", f)]
    return found


def main():
    sandbox, so, capture = sys.argv[1:4]
    failures = 0
    for doc in sys.argv[4:]:
        for f in filters(doc):
            res = subprocess.run([sandbox, so, "-n", "-r", capture, "-c", "1", "-Y", f], capture_output=True,
                                 text=True)
            ok = res.returncode == 0
            err = "" if ok else ": " + " ".join(l for l in res.stderr.splitlines() if "Running as" not in l)[:200]
            print("%s  %s: %s%s" % ("ok   " if ok else "FAIL ", doc.split("/")[-1], f, err))
            failures += not ok
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
