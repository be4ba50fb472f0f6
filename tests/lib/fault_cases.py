"""fault_cases.py: the fault set: meter-sim's fault-* scenarios, each varied
in seed, block size, hops and severity within the ranges docs/meter-sim.md
("Fault scenarios") gives, so that the injected cause stays the dominant one.
Shared by tests/analyzer/test_verdict_faults.py (the analyser's verdict
against the truth's injected_cause) and tests/bench/fault_scenarios.py (the
truth's own numbers of each case)."""
import ipaddress
import json
import subprocess

# (scenario, extra meter-sim options); every case names its seed.
CASES = [
    # radio_loss: bursty loss, or 1024-byte blocks on a busy multi-hop mesh
    ("fault-radio-loss", ["--seed", "1"]),
    ("fault-radio-loss", ["--seed", "2", "--szx", "3"]),
    ("fault-radio-loss", ["--seed", "3", "--loss", "0.15", "--hops", "3"]),
    ("fault-radio-loss", ["--seed", "4", "--loss", "0.3", "--hops", "1"]),
    ("fault-radio-loss", ["--seed", "5", "--szx", "6", "--hops", "3", "--loss", "0.05", "--background", "20"]),
    ("fault-radio-loss", ["--seed", "6", "--szx", "6", "--loss", "0.025", "--background", "30",
                          "--hidden-fraction", "0.5", "--bg-upload-interval", "10"]),
    # poll_wait: polls of 1-1.8 s, below ACK_TIMEOUT
    ("fault-poll", ["--seed", "1"]),
    ("fault-poll", ["--seed", "2", "--poll-ms", "1000"]),
    ("fault-poll", ["--seed", "3", "--poll-ms", "1800", "--szx", "3"]),
    ("fault-poll", ["--seed", "4", "--poll-ms", "1200", "--hops", "2", "--szx", "5"]),
    ("fault-poll", ["--seed", "5", "--szx", "6"]),
    ("fault-poll", ["--seed", "6", "--poll-ms", "1000", "--hops", "3"]),
    # spurious_retransmissions: a backhaul round trip of 2.5-5 s
    ("fault-spurious", ["--seed", "1"]),
    ("fault-spurious", ["--seed", "2", "--rtt-ms", "2700", "--rtt-jitter-ms", "400"]),
    ("fault-spurious", ["--seed", "3", "--rtt-ms", "4500", "--rtt-jitter-ms", "1000", "--szx", "3"]),
    ("fault-spurious", ["--seed", "4", "--szx", "5", "--hops", "2"]),
    ("fault-spurious", ["--seed", "5", "--rtt-ms", "3000", "--rtt-jitter-ms", "1000", "--szx", "6"]),
    ("fault-spurious", ["--seed", "6", "--rtt-ms", "4000", "--rtt-jitter-ms", "500", "--hops", "3"]),
    # turnaround: 0.5-2 s of processing or flash per block
    ("fault-turnaround", ["--seed", "1"]),
    ("fault-turnaround", ["--seed", "2", "--turnaround-ms", "500", "--szx", "3"]),
    ("fault-turnaround", ["--seed", "3", "--turnaround-ms", "2000"]),
    ("fault-turnaround", ["--seed", "4", "--turnaround-ms", "800", "--hops", "2", "--szx", "5"]),
    ("fault-turnaround", ["--seed", "5", "--turnaround-ms", "1500", "--szx", "6"]),
    ("fault-turnaround", ["--seed", "6", "--turnaround-ms", "200", "--flash-us-per-byte", "2000"]),
    # backhaul: a round trip of 1-1.6 s, below ACK_TIMEOUT
    ("fault-backhaul", ["--seed", "1"]),
    ("fault-backhaul", ["--seed", "2", "--rtt-ms", "1000", "--rtt-jitter-ms", "200", "--hops", "3"]),
    ("fault-backhaul", ["--seed", "3", "--rtt-ms", "1500", "--rtt-jitter-ms", "200", "--szx", "3"]),
    ("fault-backhaul", ["--seed", "4", "--szx", "5"]),
    ("fault-backhaul", ["--seed", "5", "--rtt-ms", "1200", "--rtt-jitter-ms", "400", "--szx", "6"]),
    ("fault-backhaul", ["--seed", "6", "--rtt-ms", "1400", "--rtt-jitter-ms", "100"]),
    # stalls: a link outage of 40-120 s while the download runs
    ("fault-stall", ["--seed", "1"]),
    ("fault-stall", ["--seed", "2", "--outage", "40"]),
    ("fault-stall", ["--seed", "3", "--outage", "120", "--szx", "3"]),
    ("fault-stall", ["--seed", "4", "--outage", "90", "--hops", "2"]),
    ("fault-stall", ["--seed", "5", "--szx", "6", "--outage-at", "2"]),
    ("fault-stall", ["--seed", "6", "--outage", "45", "--outage-at", "4", "--szx", "3"]),
    # protocol_error: SZX 7 or SZX 0 refused, block-size renegotiation
    ("fault-protocol", ["--seed", "1"]),
    ("fault-protocol", ["--seed", "2", "--gw-szx7-no-payload"]),
    ("fault-protocol", ["--seed", "3", "--szx", "0", "--gw-szx0", "bad-option"]),
    ("fault-protocol", ["--seed", "4", "--szx", "0", "--gw-szx0", "empty"]),
    ("fault-protocol", ["--seed", "5", "--hops", "2"]),
    ("fault-protocol", ["--seed", "6", "--szx", "0", "--gw-szx0", "bad-option", "--hops", "3"]),
    ("fault-protocol", ["--seed", "7", "--szx", "6", "--gw-max-szx", "2"]),
    # capture_imperfect: a sniffer that misses 20-40%, or the gateway's capture
    ("fault-capture", ["--seed", "1"]),
    ("fault-capture", ["--seed", "2", "--sniffer-miss", "0.2"]),
    ("fault-capture", ["--seed", "3", "--sniffer-miss", "0.4", "--szx", "3"]),
    ("fault-capture", ["--seed", "4", "--sniffer-miss", "0.25", "--sniffer-burst", "3", "--hops", "2"]),
    ("fault-gateway-view", ["--seed", "1"]),
    ("fault-gateway-view", ["--seed", "2", "--szx", "6"]),
    ("fault-gateway-view", ["--seed", "3", "--hops", "2", "--szx", "3"]),
]


def label(case):
    scenario, args = case
    return " ".join([scenario] + args)


def generate(sim, case, path):
    """Writes the case's capture at path (and path.truth.json); its truth."""
    scenario, args = case
    subprocess.run([sim, "--scenario", scenario, *args, "--quiet", "--output", path], check=True)
    with open(path + ".truth.json") as f:
        return json.load(f)


def faulty_transfer(truth):
    """The transfer the fault is in: meter0's first firmware download (for
    fault-protocol the refused one; docs/ground-truth.md)."""
    for x in truth["transfers"]:
        if not x["background"] and x["kind"] == "block2" and x["meter"]["name"] == "meter0":
            return x
    return None


def same_address(a, b):
    return ipaddress.ip_address(a) == ipaddress.ip_address(b)


def matching_report_transfer(transfers, x):
    """The analyser's transfer that is the truth's x: same meter and path,
    the first request nearest (a missed frame may move it)."""
    mine = [t for t in transfers
            if same_address(t["meter"], x["meter"]["ipv6"]) and t["path"] == x["uri_path"]]
    if not mine or x["first_request_us"] is None:
        return None
    return min(mine, key=lambda t: abs(t["first_request_us"] - x["first_request_us"]))


PARTS = ("air", "timeouts", "network", "turnaround", "poll", "unseen")


def largest_part(x):
    """The largest part of the truth's duration split (on_air.time_*_s)."""
    oa = x["on_air"]
    return max(PARTS, key=lambda p: oa["time_%s_s" % p])


def claim_holds(truth, x):
    """Whether the truth's own numbers show the injected cause at work in the
    faulty transfer x, and the numbers that say so."""
    cause, oa = truth["injected_cause"], x["on_air"]
    retx = x["coap_retransmissions"]
    if cause == "radio_loss":
        return x["datagrams_lost"] > 0 and largest_part(x) == "timeouts", \
            "%d datagrams lost, largest part %s" % (x["datagrams_lost"], largest_part(x))
    if cause in ("poll_wait", "turnaround", "backhaul"):
        # Most of the time, and no answer so late that the meter sent again
        # for nothing (a lossless radio still has the odd collision).
        part = {"poll_wait": "poll", "turnaround": "turnaround", "backhaul": "network"}[cause]
        share = oa["time_%s_s" % part] / oa["duration_s"]
        return share >= 0.5 and oa["spurious_retransmissions"] == 0, \
            "%s %.0f%% of the time, %d retransmissions (%d spurious)" % (
                part, 100 * share, retx, oa["spurious_retransmissions"])
    if cause == "spurious_retransmissions":
        spurious = oa["spurious_retransmissions"]
        return spurious > 0 and 2 * spurious >= retx, "%d of %d retransmissions spurious" % (spurious, retx)
    if cause == "stalls":
        return oa["stalls"] > 0 and 2 * oa["stalled_s"] >= oa["duration_s"], \
            "%d stalls, %.1f of %.1f s" % (oa["stalls"], oa["stalled_s"], oa["duration_s"])
    if cause == "protocol_error":
        return x["error_responses"] > 0 or x["renegotiated"], \
            "%d error responses, renegotiated %s" % (x["error_responses"], x["renegotiated"])
    if cause == "capture_imperfect":
        if truth["link"] == "gateway":
            return True, "gateway view"
        sn = truth["sniffer"]
        share = sn["not_captured"]["frames"] / max(sn["frames_on_air"], 1)
        return share >= 0.15, "%.0f%% of the frames not captured" % (100 * share)
    return False, "no injected cause"
