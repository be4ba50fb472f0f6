#!/usr/bin/env python3
"""test_etsi_blockwise.py SANDBOX PLUGIN_SO METERSCOPE DIR CAPTURE...: the ETSI
CoAP plugtest block-wise captures (real stacks, shared/captures-real/
etsi-coap-block, its README). The expected transfers come from what stock
tshark shows of each CoAP message (`-T fields -e coap.*`), put together by
the rules of docs/ota-sessions.md (Block1 with a Block2 answer, late
negotiation, a server's SZX change); the plugin's `-z meter,ota,tsv`
records, the transfers its frames name (`meter.transfer`, with `-2`), its
re-request, gap and larger-SZX expert infos, and the analyser's JSON report
must all say the same."""
import json
import os
import subprocess
import sys
from decimal import Decimal

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
import tshark_view as tv  # noqa: E402
from analyser_run import Analyser  # noqa: E402

FIELDS = ["frame.number", "frame.time_epoch", "ip.src", "udp.srcport", "ip.dst", "udp.dstport",
          "coap.type", "coap.code", "coap.mid", "coap.token", "coap.opt.name", "coap.opt.block_number",
          "coap.opt.block_mflag", "coap.opt.block_size", "coap.opt.uri_path", "coap.block_length"]
COLUMNS = ["kind", "path", "szx_first", "szx", "renegotiated", "blocks", "bytes", "complete",
           "first_request_us", "last_response_us", "requests", "retransmissions", "rerequests"]


def stock_messages(capture):
    """Each CoAP message as stock CoAP decodes it."""
    rows = tv.run_fields(capture, {}, FIELDS, display_filter="coap")
    msgs = []
    for r in rows:
        names = [n.split(": ", 1)[1] for n in r["coap.opt.name"].split(";") if n]
        nums = r["coap.opt.block_number"].split(";")
        mflags = r["coap.opt.block_mflag"].split(";")
        # Block options come before Size2 (option 28), whose stock decoding
        # adds a block size field of its own: the first ones are the blocks'.
        szxs = r["coap.opt.block_size"].split(";")
        blocks = {}
        for i, name in enumerate(n for n in names if n in ("Block1", "Block2")):
            blocks[name] = (int(nums[i]), int(mflags[i]), int(szxs[i]))
        code = int(r["coap.code"])
        msgs.append({
            "frame": int(r["frame.number"]),
            "us": int(Decimal(r["frame.time_epoch"]) * 1000000),
            "src": (r["ip.src"], r["udp.srcport"]), "dst": (r["ip.dst"], r["udp.dstport"]),
            "type": int(r["coap.type"]), "code": code, "mid": int(r["coap.mid"]), "token": r["coap.token"],
            "request": 1 <= code < 32,
            "path": "/" + "/".join(p for p in r["coap.opt.uri_path"].split(";") if p),
            "blocks": blocks,
            "len": int(r["coap.block_length"] or 0),
        })
    return msgs


def offset(block):
    num, _, szx = block
    return num * (16 << szx)


class Transfer:
    def __init__(self, number, kind, client, server, path):
        self.number, self.kind, self.client, self.server, self.path = number, kind, client, server, path
        self.exchanges = []      # (request, [responses])
        self.complete = False

    def expected(self):
        upload = self.kind == "block1"
        key = "Block1" if upload else "Block2"
        reqs = [q for q, _ in self.exchanges]
        first = reqs[0]
        requested, rerequests = set(), 0
        for q in reqs:
            at = offset(q["blocks"][key]) if key in q["blocks"] else 0
            rerequests += at in requested
            requested.add(at)
        answered, last_response, szx, renegotiated = {}, -1, None, False
        for q, answers in self.exchanges:
            for a in answers:
                if not 64 <= a["code"] < 96:
                    continue
                block = q["blocks"].get(key) if upload else a["blocks"].get(key)
                if block is not None and (q if upload else a)["len"]:
                    answered.setdefault(offset(block), (q if upload else a)["len"])
                got = a["blocks"].get(key)
                if got is not None:
                    renegotiated |= key in q["blocks"] and got[2] != q["blocks"][key][2]
                    szx = got[2]
                final = (block is not None and not block[1]) if upload else (got is None or not got[1])
                if final and last_response < 0:
                    last_response = a["us"]
        at = 0
        while answered.get(at):
            at += answered[at]
        szx_first = first["blocks"][key][2] if key in first["blocks"] else \
            self.exchanges[0][1][0]["blocks"][key][2]
        return {"kind": self.kind, "path": self.path, "szx_first": szx_first,
                "szx": szx if szx is not None else szx_first, "renegotiated": int(renegotiated),
                "blocks": len(answered), "bytes": at, "complete": int(last_response >= 0),
                "first_request_us": first["us"], "last_response_us": last_response,
                "requests": len(reqs), "retransmissions": 0, "rerequests": rerequests}


def expected_transfers(msgs):
    """Transfers by the rules of docs/ota-sessions.md, with the frames of each."""
    transfers, current, by_mid, frames_of = [], {}, {}, {}

    def start(kind, q):
        x = Transfer(len(transfers) + 1, kind, q["src"], q["dst"], q["path"])
        transfers.append(x)
        current[(q["src"], q["dst"], q["path"], kind)] = x
        return x

    def join(x, q, frame_list):
        x.exchanges.append((q, []))
        for f in frame_list:
            frames_of.setdefault(f, set()).add(x.number)

    exchange_of = {}
    for m in msgs:
        if m["request"]:
            assert (m["src"], m["mid"]) not in by_mid, "the ETSI captures have no retransmissions"
            by_mid[(m["src"], m["mid"])] = m
            exchange_of[m["frame"]] = []
            kind = "block1" if "Block1" in m["blocks"] else "block2" if "Block2" in m["blocks"] else None
            if kind is None:
                continue
            block = m["blocks"]["Block1" if kind == "block1" else "Block2"]
            x = current.get((m["src"], m["dst"], m["path"], kind))
            if x is None or (block[0] == 0 and (x.complete or len(x.exchanges) > 1)):
                x = start(kind, m)
            join(x, m, [m["frame"]])
            exchange_of[m["frame"]].append(x)
            continue
        q = by_mid[(m["dst"], m["mid"])]
        m["path"] = q["path"]
        xs = exchange_of[q["frame"]]
        # A Block2 answer with block 0 starts a download with its request
        # (late negotiation, or the answer to an upload's request).
        if "Block2" in m["blocks"] and m["blocks"]["Block2"][0] == 0 and not any(x.kind == "block2" for x in xs):
            x = start("block2", q)
            join(x, q, [q["frame"]])
            xs.append(x)
        for x in xs:
            for eq, answers in x.exchanges:
                if eq is q:
                    answers.append(m)
            frames_of.setdefault(m["frame"], set()).add(x.number)
            key = "Block1" if x.kind == "block1" else "Block2"
            b = (q if x.kind == "block1" else m)["blocks"].get(key)
            if 64 <= m["code"] < 96 and (b is None or not b[1]):
                x.complete = True
    return transfers, frames_of


def expected_experts(transfers):
    """Frames that must carry meter.ota.szx_larger, meter.ota.gap and
    meter.ota.rerequest."""
    larger, gaps, rereq = set(), set(), set()
    for x in transfers:
        key = "Block1" if x.kind == "block1" else "Block2"
        requested, highest, contiguous = set(), 0, 0
        for q, answers in x.exchanges:
            b = q["blocks"].get(key)
            at = offset(b) if b else 0
            if at in requested:
                rereq.add(q["frame"])
            elif b and at > max(highest + (16 << b[2]), contiguous):
                gaps.add(q["frame"])
            requested.add(at)
            highest = max(highest, at)
            for a in answers:
                got = a["blocks"].get(key)
                if b and got and got[2] > b[2]:
                    larger.add(a["frame"])
                carried = q if x.kind == "block1" else a
                cb = carried["blocks"].get(key) if x.kind == "block2" else b
                if 64 <= a["code"] < 96 and cb and offset(cb) == contiguous:
                    contiguous += carried["len"]
    return {"meter.ota.szx_larger": larger, "meter.ota.gap": gaps, "meter.ota.rerequest.expert": rereq}


def plugin(sandbox, so, capture, args, check=True):
    res = subprocess.run([sandbox, so, "-n", "-r", capture] + args, check=check, capture_output=True, text=True)
    return res.stdout if check else res


def compare(where, got, want):
    def norm(v):
        # The analyser's JSON has booleans and null where the TSV has 0/1 and -1.
        return str(-1 if v is None else int(v) if isinstance(v, bool) else v)
    bad = ["%s %s: %s, expected %s" % (where, c, got.get(c), want[c]) for c in COLUMNS
           if norm(got.get(c)) != norm(want[c])]
    for b in bad:
        print("FAIL " + b)
    return not bad


def main():
    sandbox, so, meterscope, folder = sys.argv[1:5]
    failures = 0
    analyser = Analyser(meterscope)
    try:
        for name in sys.argv[5:]:
            cap = os.path.join(folder, name + ".pcap")
            transfers, frames_of = expected_transfers(stock_messages(cap))
            want = [x.expected() for x in transfers]
            ok = True
            rows = tv.ota_tsv(plugin(sandbox, so, cap, ["-q", "-z", "meter,ota,tsv"]))[0]
            if len(rows) != len(want):
                print("FAIL %s: %d transfers, expected %d" % (name, len(rows), len(want)))
                ok = False
            for r, w in zip(rows, want):
                ok &= compare("%s transfer %s (tsv)" % (name, r["transfer"]), r, w)
            res = analyser.run(["--no-progress", "--format", "json", analyser.copy(cap)])
            report = json.loads(res.stdout)
            got = report["captures"][0]["transfers"]
            if len(got) != len(want):
                print("FAIL %s: the analyser reports %d transfers, expected %d" % (name, len(got), len(want)))
                ok = False
            for r, w in zip(got, want):
                ok &= compare("%s transfer %s (analyser)" % (name, r["transfer"]), r, w)
            # Frame by frame, on the second pass: the transfers each frame is in.
            out = plugin(sandbox, so, cap, ["-2", "-T", "fields", "-E", "aggregator=;", "-e", "frame.number",
                                            "-e", "meter.transfer"])
            for line in out.splitlines():
                frame, ids = (line.split("\t") + [""])[:2]
                have = {int(i) for i in ids.split(";") if i}
                if have != frames_of.get(int(frame), set()):
                    print("FAIL %s frame %s: in transfers %s, expected %s" % (name, frame, sorted(have),
                                                                            sorted(frames_of.get(int(frame), ()))))
                    ok = False
            experts = expected_experts(transfers)
            for expert, frames in experts.items():
                res = plugin(sandbox, so, cap, ["-2", "-Y", expert, "-T", "fields", "-e", "frame.number"],
                             check=False)
                if res.returncode:
                    print("FAIL %s: tshark refuses the filter %s: %s" % (name, expert, res.stderr.strip()[:200]))
                    ok = False
                    continue
                have = {int(f) for f in res.stdout.split()}
                if have != frames:
                    print("FAIL %s: %s on frames %s, expected %s" % (name, expert, sorted(have), sorted(frames)))
                    ok = False
            print("%s  %s: %d transfers (%s)%s" % (
                "ok   " if ok else "FAIL ", name, len(want),
                "; ".join("%s %d requests %d B%s" % (w["kind"], w["requests"], w["bytes"],
                                                     "" if w["complete"] else " incomplete") for w in want),
                "".join(", %s on %s" % (e, sorted(f)) for e, f in experts.items() if f)))
            failures += not ok
    finally:
        analyser.close()
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
