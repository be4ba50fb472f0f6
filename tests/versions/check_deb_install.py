#!/usr/bin/env python3
"""check_deb_install.py DIR DEB SUITE: what test-deb-install.sh left in DIR,
checked: the package put the plugin into the global plugin folder of the
Wireshark it pins and tshark lists it as a dissector of this version; the
tools and the manual page are installed; the normal user's report on the
bundled capture has every transfer of its truth with every on-air number
equal; nothing of the package is left after the purge."""
import json
import os
import re
import sys

from checks import Checks
from ota_compare import as_tsv_row, differences

check = Checks()


def read(d, name):
    with open(os.path.join(d, name)) as f:
        return f.read()


def main():
    d, deb, suite = sys.argv[1:4]
    minor = re.search(r"\+wireshark(\d+\.\d+)_", deb).group(1)
    major, minor_n = (int(v) for v in minor.split("."))
    depends = [dep.strip() for dep in read(d, "depends").split(",")]
    pins = ["tshark (>= %s~)" % minor, "tshark (<< %d.%d~)" % (major, minor_n + 1)]
    check(all(p in depends for p in pins) and
          any(re.match(r"libwireshark\d+ \(<< %d\.%d~\)$" % (major, minor_n + 1), dep) for dep in depends),
          "its dependencies pin Wireshark %s: %s" % (minor, ", ".join(depends)))
    files = read(d, "files").split()
    plugin = [f for f in files if f.endswith("/meterscope.so")]
    check(len(plugin) == 1 and re.search(r"/wireshark/plugins/%s/epan/meterscope\.so$" % re.escape(minor),
                                         plugin[0]) is not None,
          "%s on %s: the plugin goes to the global plugins/%s/epan folder (%s)" % (deb, suite, minor, plugin))
    listed = [line.split("\t") for line in read(d, "plugins").splitlines() if line.startswith("meterscope.so")]
    check(len(listed) == 1 and listed[0][2] == "dissector" and listed[0][1] == read(d, "version").split()[-1],
          "tshark -G plugins lists it as a dissector with the package's version: %s" % listed)
    for f in ("/usr/bin/meterscope", "/usr/bin/meter-sim", "/usr/share/man/man1/meterscope.1.gz"):
        check(f in files, "%s is installed" % f)

    truth = json.loads(read(d, "truth.json"))
    report = json.loads(read(d, "report.json"))
    transfers = report["captures"][0]["transfers"]
    want = [x for x in truth["transfers"] if x["on_air"]["requests"] > 0]
    check(len(transfers) == len(want), "the normal user's report has the truth's %d transfers (%d)"
          % (len(want), len(transfers)))
    for x in want:
        match = [t for t in transfers if t["meter"] == x["meter"]["ipv6"] and t["path"] == x["uri_path"]
                 and t["first_request_us"] == x["on_air"]["first_request_us"]]
        diff = differences(as_tsv_row(match[0]), x) if len(match) == 1 else ["reported %d times" % len(match)]
        check(not diff, "transfer %d (%s): every on-air number equals the truth%s"
              % (x["id"], x["uri_path"], (" (" + "; ".join(diff) + ")") if diff else ""))
    left = read(d, "left").split()
    check(not left, "apt-get purge leaves none of the package's files%s" % ((": " + " ".join(left)) if left else ""))
    return check.summary("deb-" + suite)


if __name__ == "__main__":
    sys.exit(main())
