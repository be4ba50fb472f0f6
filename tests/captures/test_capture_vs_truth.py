#!/usr/bin/env python3
"""test_capture_vs_truth.py CAPTURE: stock tshark 4.0 dissects CAPTURE cleanly
(good FCS, nothing malformed, no warnings, every data frame decoded, which for
a secured capture means decrypted with the key), and the counts it sees equal
the generator's truth file. The firmware image reassembled from the Block2
payloads tshark shows hashes to the truth's SHA-256."""
import hashlib
import sys

import tshark_view as tv

AIR_KEYS = ["frames", "acks", "fragment_frames", "mac_retries", "coap_messages",
            "block2_responses", "con_retransmissions", "reassembled_copies"]
GATEWAY_KEYS = ["coap_messages", "block2_responses", "con_retransmissions"]


def check(cond, what, failures):
    print(("ok    " if cond else "FAIL  ") + what)
    if not cond:
        failures.append(what)


def image_from_capture(capture, truth, path, only_path):
    """The image as delivered: block payloads by byte offset, first copy wins.
    Stock CoAP names a response's path only when a token ties it to its
    request; tokenless (OpenThread-style) blocks count when only_path."""
    rows = tv.run_fields(capture, truth, fields=["coap.opt.block_number", "coap.opt.block_size",
                                                 "coap.opt.uri_path_recon", "coap.block_payload",
                                                 "coap.code"],
                         display_filter="coap.code == 69 && coap.block_payload")
    chunks = {}
    for r in rows:
        if r["coap.opt.uri_path_recon"] != path and not (only_path and not r["coap.opt.uri_path_recon"]):
            continue
        num = int(r["coap.opt.block_number"].split(";")[0])
        size = 16 << int(r["coap.opt.block_size"].split(";")[0])
        chunks.setdefault(num * size, bytes.fromhex(r["coap.block_payload"]))
    image, at = b"", 0
    while at in chunks:
        image += chunks[at]
        at += len(chunks[at])
    return image


def main():
    capture = sys.argv[1]
    truth = tv.load_truth(capture)
    gateway = truth["link"] == "gateway"
    failures = []
    counts = tv.count(tv.run_fields(capture, truth), gateway)
    check(counts["frames"] == truth["records"], "records: tshark %d, truth %d"
          % (counts["frames"], truth["records"]), failures)
    check(counts["malformed"] == 0, "no malformed frames (%d)" % counts["malformed"], failures)
    check(counts["warnings"] == 0, "no expert warnings or errors (%d)" % counts["warnings"], failures)
    if not gateway:
        check(counts["fcs_bad"] == 0, "every FCS good (%d bad)" % counts["fcs_bad"], failures)
        check(counts["undecoded_data"] == 0, "every data frame decoded%s (%d not)"
              % (" and decrypted" if truth["security"] else "", counts["undecoded_data"]), failures)
    view = truth["gateway_view"] if gateway else truth["air"]
    for k in (GATEWAY_KEYS if gateway else AIR_KEYS):
        check(counts[k] == view[k], "%s: tshark %d, truth %d" % (k, counts[k], view[k]), failures)

    block2_paths = {x["uri_path"] for x in truth["transfers"] if x["kind"] == "block2"}
    for x in truth["transfers"]:
        if x["kind"] != "block2" or x["outcome"] != "complete" or not x["sha256"]:
            continue
        img = image_from_capture(capture, truth, x["uri_path"], len(block2_paths) == 1)
        check(len(img) == x["resource_size"] and img[:4] == bytes.fromhex("3db8f396"),
              "transfer %d: %d image bytes reassembled from the capture, MCUboot magic"
              % (x["id"], len(img)), failures)
        hdr_size = int.from_bytes(img[8:10], "little")
        body = int.from_bytes(img[12:16], "little")
        check(hashlib.sha256(img[:hdr_size + body]).hexdigest() == x["sha256"],
              "transfer %d: SHA-256 of header+body equals the truth" % x["id"], failures)
    if failures:
        print("%d check(s) failed for %s" % (len(failures), capture))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
