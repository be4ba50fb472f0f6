#!/usr/bin/env python3
"""user_script.py CAPTURE [TSHARK_ARG...]: what a field engineer writes
without meterscope, the baseline the analyser's benchmark holds it against
(tests/bench/bench_analyser.sh). It asks stock tshark for every CoAP
message as JSON (`-Y coap -T json`), then counts, per block-wise transfer
(meter, gateway, URI path), the blocks, the retransmitted requests (a CON
request whose Message ID was seen before) and the rate (block bytes over the
time from the first request to the last block), and prints a line each.

Not a reference for any number: a benchmark's stand-in for a script."""
import datetime
import json
import subprocess
import sys


def first(layer, key, default=None):
    """A field's value; tshark gives a list where a field occurs more than once."""
    v = layer.get(key, default)
    return v[0] if isinstance(v, list) else v


def epoch(text):
    """frame.time_epoch: seconds (4.0, 4.4) or an ISO 8601 time (4.6)."""
    try:
        return float(text)
    except ValueError:
        whole, _, frac = text.rstrip("Z").partition(".")
        t = datetime.datetime.strptime(whole, "%Y-%m-%dT%H:%M:%S").replace(tzinfo=datetime.timezone.utc)
        return t.timestamp() + float("0." + (frac or "0"))


def block_options(coap):
    """(option name, number, more, szx) of each Block1/Block2 option."""
    names = coap.get("coap.opt.name", [])
    trees = coap.get("coap.opt.name_tree", [])
    names = names if isinstance(names, list) else [names]
    trees = trees if isinstance(trees, list) else [trees]
    for name, tree in zip(names, trees):
        if "Block" in name and isinstance(tree, dict) and "coap.opt.block_number" in tree:
            yield ("Block1" if "Block1" in name else "Block2", int(first(tree, "coap.opt.block_number")),
                   first(tree, "coap.opt.block_mflag") == "1", int(first(tree, "coap.opt.block_size")))


def main():
    cap, extra = sys.argv[1], sys.argv[2:]
    out = subprocess.run(["tshark", "-n", "-r", cap, "-Y", "coap", "-T", "json", "--no-duplicate-keys"] + extra,
                         check=True, capture_output=True, text=True).stdout
    packets = json.loads(out)
    paths = {}          # request frame -> URI path
    transfers = {}      # (meter, gateway, path) -> counts
    mids = {}           # (meter, gateway) -> Message IDs of the requests seen
    for p in packets:
        layers = p["_source"]["layers"]
        frame, coap = layers["frame"], layers.get("coap")
        ip = layers.get("ipv6") or layers.get("ip")
        if not coap or not ip:
            continue
        num = int(first(frame, "frame.number"))
        t = epoch(first(frame, "frame.time_epoch"))
        src = first(ip, "ipv6.src") or first(ip, "ip.src")
        dst = first(ip, "ipv6.dst") or first(ip, "ip.dst")
        code = int(first(coap, "coap.code", "0"))
        ctype = int(first(coap, "coap.type", "0"))
        mid = first(coap, "coap.mid")
        blocks = list(block_options(coap))
        if 1 <= code <= 31:                       # a request
            path = first(coap, "coap.opt.uri_path_recon", "")
            paths[num] = path
            key = (src, dst, path)
            x = transfers.setdefault(key, {"blocks": set(), "bytes": 0, "retx": 0, "start": t, "end": t})
            seen = mids.setdefault((src, dst), set())
            if ctype == 0 and mid in seen:
                x["retx"] += 1
            seen.add(mid)
            for name, n, more, szx in blocks:
                if name == "Block1" and n not in x["blocks"]:
                    x["blocks"].add(n)
                    x["bytes"] += 16 << szx
        elif code:                                # a response
            req = first(coap, "coap.response_to")
            path = paths.get(int(req)) if req else None
            x = transfers.get((dst, src, path))
            if x is None:
                continue
            for name, n, more, szx in blocks:
                if name == "Block2" and code == 69 and n not in x["blocks"]:
                    x["blocks"].add(n)
                    x["bytes"] += int(first(coap, "coap.payload_length", 16 << szx))
            x["end"] = t
    for (meter, gateway, path), x in sorted(transfers.items()):
        if not x["blocks"]:
            continue
        span = x["end"] - x["start"]
        print("%s -> %s%s: %d blocks, %d bytes, %d retransmissions, %.1f B/s" % (
            meter, gateway, path, len(x["blocks"]), x["bytes"], x["retx"], x["bytes"] / span if span > 0 else 0))


if __name__ == "__main__":
    main()
