"""tshark_view.py: what stock tshark 4.0 sees in a capture, counted the way
docs/ground-truth.md defines the truth file's capture-level numbers.

Only stock dissectors are used here (no meterscope plugin), so these checks
test the generator against an independent decoder.
"""
import json
import os
import re
import subprocess

FIELDS = [
    "frame.number", "wpan.frame_type", "wpan.seq_no", "wpan.src16", "wpan.src64",
    "wpan.dst16", "wpan.ack_request", "wpan.fcs_ok", "6lowpan.frag.size", "ipv6.src",
    "ipv6.dst", "coap.type", "coap.code", "coap.mid", "coap.opt.name",
    "coap.opt.block_number", "_ws.malformed", "_ws.expert.severity", "frame.protocols",
]

WARNING = 6291456   # expert severity PI_WARN


_meter_loaded = None


def stock_only_args():
    """Keeps an installed meterscope plugin out of a stock-tshark run. 4.4 and
    later refuse --disable-protocol for a protocol that is not there, so it
    is passed only when the plugin is loaded."""
    global _meter_loaded
    if _meter_loaded is None:
        out = subprocess.run([os.environ.get("TSHARK", "tshark"), "-G", "protocols"], check=True,
                             capture_output=True, text=True).stdout
        _meter_loaded = any(line.split("\t")[2:3] == ["meter"] for line in out.splitlines())
    return ["--disable-protocol", "meter"] if _meter_loaded else []


def tshark_cmd(capture, truth, extra=()):
    # Stock tshark: a meterscope plugin installed for this user takes no part.
    cmd = [os.environ.get("TSHARK", "tshark"), "-n"] + stock_only_args() + ["-r", capture]
    for pref in truth.get("wireshark_prefs", []):
        cmd += ["-o", pref]
    return cmd + list(extra)


def run_fields(capture, truth, fields=FIELDS, two_pass=False, display_filter=None):
    extra = ["-T", "fields", "-E", "separator=\t", "-E", "occurrence=a", "-E", "aggregator=;"]
    if two_pass:
        extra.append("-2")
    if display_filter:
        extra += ["-Y", display_filter]
    for f in fields:
        extra += ["-e", f]
    env = dict(os.environ, LC_ALL="C")
    out = subprocess.run(tshark_cmd(capture, truth, extra), check=True, capture_output=True,
                         text=True, env=env).stdout
    rows = []
    for line in out.splitlines():
        vals = line.split("\t")
        rows.append(dict(zip(fields, vals + [""] * (len(fields) - len(vals)))))
    return rows


def is_true(value):
    """An FT_BOOLEAN in -T fields: "1" up to 4.0, "True" from 4.4 on."""
    return value in ("1", "True")


def load_truth(capture):
    with open(capture + ".truth.json") as f:
        return json.load(f)


def count(rows, gateway_view):
    """Capture-level counts as defined for the truth file."""
    c = {"frames": len(rows), "fcs_bad": 0, "malformed": 0, "warnings": 0, "acks": 0,
         "fragment_frames": 0, "mac_retries": 0, "coap_messages": 0,
         "block2_responses": 0, "con_retransmissions": 0, "undecoded_data": 0,
         "reassembled_copies": 0}
    last_seq = {}
    seen_con = set()
    for r in rows:
        if r["_ws.malformed"]:
            c["malformed"] += 1
        sev = [int(s) for s in r["_ws.expert.severity"].split(";") if s]
        if sev and max(sev) >= WARNING:
            c["warnings"] += 1
        retry = False
        if not gateway_view:
            if not is_true(r["wpan.fcs_ok"]):
                c["fcs_bad"] += 1
            if r["wpan.frame_type"] == "0x0002":
                c["acks"] += 1
            if is_true(r["wpan.ack_request"]):
                src = r["wpan.src16"] or r["wpan.src64"]
                retry = last_seq.get(src) == r["wpan.seq_no"]
                last_seq[src] = r["wpan.seq_no"]
                c["mac_retries"] += retry
            if r["6lowpan.frag.size"]:
                c["fragment_frames"] += 1
                # The frame that completes a datagram carries the IPv6 header.
                if r["ipv6.src"] and not retry:
                    c["reassembled_copies"] += 1
            if r["wpan.frame_type"] == "0x0001" and "6lowpan" not in r["frame.protocols"].split(":"):
                c["undecoded_data"] += 1
        if not r["coap.type"] or retry:
            continue
        c["coap_messages"] += 1
        code = int(r["coap.code"])
        if code >= 64 and "Block2" in r["coap.opt.name"]:
            c["block2_responses"] += 1
        if r["coap.type"] == "0":
            link = (r["wpan.src16"] or r["wpan.src64"], r["wpan.dst16"]) if not gateway_view \
                else (r["ipv6.src"], r["ipv6.dst"])
            key = link + (r["ipv6.src"], r["coap.mid"])
            if key in seen_con:
                c["con_retransmissions"] += 1
            seen_con.add(key)
    return c


RECORD_H = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "common", "transfer_record.h")
RECORD_TAGS = {"TRANSFER": "T", "PROGRESS": "P", "COUNTS": "C"}
RECORD_VALUE = {"U32": int, "I64": int, "DBL": float, "STR": str, "BOOL": lambda v: int(v) != 0}
_record_schema = None


def record_schema():
    """The records of `-z meter,ota,tsv` as common/transfer_record.h defines
    them: {"version": "meterscope-ota 2", "T": [(name, type, optional), ...],
    "P": [...], "C": [...]}, from its X(name, TYPE, REQ|OPT, ...) lines."""
    global _record_schema
    if _record_schema is None:
        schema, tag = {}, None
        with open(RECORD_H) as f:
            for line in f:
                m = re.match(r'#define METER_RECORD_VERSION "([^"]+)"', line)
                if m:
                    schema["version"] = m.group(1)
                m = re.match(r"#define METER_(\w+)_COLUMNS\(X\)", line)
                if m:
                    tag = RECORD_TAGS[m.group(1)]
                    schema[tag] = []
                    continue
                if tag:
                    m = re.match(r"\s*X\((\w+), (U32|I64|DBL|STR|BOOL), (REQ|OPT),", line)
                    if m:
                        schema[tag].append((m.group(1), m.group(2), m.group(3) == "OPT"))
                    if not line.rstrip().endswith("\\"):
                        tag = None
        _record_schema = schema
    return _record_schema


def ota_tsv(text):
    """The records of `-z meter,ota,tsv`: a list of transfer dicts (T records)
    and a list of progress-point dicts (P records), keyed by the column names
    its #T and #P lines give, values typed as common/transfer_record.h says
    (a column it does not know stays text). A column it defines but the
    plugin did not print is an error."""
    schema = record_schema()
    lines = text.splitlines()
    start = lines.index("# " + schema["version"])
    names, records = {}, {"T": [], "P": []}
    for line in lines[start + 1:]:
        cells = line.split("\t")
        tag = cells[0][1:]
        if cells[0].startswith("#") and tag in RECORD_TAGS.values():
            missing = [c[0] for c in schema[tag] if c[0] not in cells[1:]]
            if missing:
                raise ValueError("#%s names no column %s" % (tag, ", ".join(missing)))
            value = {c[0]: RECORD_VALUE[c[1]] for c in schema[tag]}
            names[tag] = [(n, value.get(n, str)) for n in cells[1:]]
        elif cells[0] in names:
            records.setdefault(cells[0], []).append({n: conv(v) for (n, conv), v in zip(names[cells[0]], cells[1:])})
    return records["T"], records["P"]
