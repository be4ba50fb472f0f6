"""ota_compare.py: what differs between a transfer record and the generator's
truth. The record is a row of `-z meter,ota,tsv` (tshark_view.ota_tsv), or a
transfer of the analyser's JSON report turned into one (as_tsv_row); the
truth is the transfer's `on_air` record (docs/ota-sessions.md). Counts must
be equal, times to the microsecond (the capture's resolution), rates to
1e-6 relative; host timestamps within the host's latency. The parts of the
time split the plugin estimates (a poll wait whose datagram came from
Ethernet, the gateway view's unseen time) within the bounds the truth
gives for such an estimate; the split's sum exactly."""

COUNTS = ["blocks", "bytes", "requests", "retransmissions", "spurious_retransmissions", "rerequests", "mac_retries",
          "datagrams_fragmented", "datagrams_incomplete", "fragments_lost", "stalls", "datagram_copies",
          "frames_sent", "frames_unacked", "request_copies", "request_copies_lost", "request_frames_complete",
          "response_copies", "response_copies_lost", "response_frames_complete", "response_bytes_complete",
          "response_first_lost", "response_later_frames"]
TIMES_US = ["first_request_us", "last_response_us", "last_activity_us"]
SECONDS = ["duration_s", "rtt_first_median_s", "rtt_first_p95_s", "rtt_last_median_s", "rtt_last_p95_s",
           "turnaround_median_s", "turnaround_p95_s", "time_air_s", "time_timeouts_s", "time_network_s",
           "time_turnaround_s", "time_poll_s", "time_unseen_s", "stalled_s"]
SPLIT = ["time_air_s", "time_timeouts_s", "time_network_s", "time_turnaround_s", "time_poll_s", "time_unseen_s"]
WAITING = SPLIT[1:]   # every part but the air: what an estimate moves time between

# A host stamp is 0.5-4 ms after its frame's end (meter-sim --timestamp host):
# an instant is that much late, a span between two stamps off by 3.5 ms.
HOST_LATE_US = (500, 4001)
HOST_SPAN_S = 0.0035


def differences(row, x, stamp="end"):
    """What differs between a plugin row and a truth transfer. Counts are
    exact whatever the timestamps mark; times too when they mark a frame's
    end or start (the plugin moves a start to the end), and when they are
    a host's, within the host's latency."""
    if stamp == "host":
        return host_differences(row, x)
    oa = x["on_air"]
    diff = count_differences(row, oa)
    for k in TIMES_US:
        want = oa[k] if oa[k] is not None else -1
        if int(row[k]) != want:
            diff.append("%s %s != %s" % (k, row[k], want))
    tolerance = estimate_tolerances(oa)
    for k in SECONDS:
        want = oa[k] if oa[k] is not None else (0 if k == "duration_s" else -1)
        if abs(float(row[k]) - want) > 1.5e-6 + tolerance.get(k, 0):
            diff.append("%s %s != %s%s" % (k, row[k], want, " +- %.6f" % tolerance[k] if k in tolerance else ""))
    parts = sum(float(row[k]) for k in SPLIT)
    if abs(parts - float(row["duration_s"])) > 4e-6:
        diff.append("time split adds up to %.6f, not the duration %s" % (parts, row["duration_s"]))
    waiting = sum(float(row[k]) for k in WAITING)
    if abs(waiting - sum(oa[k] for k in WAITING)) > 4e-6:
        diff.append("the parts but the air add up to %.6f, the truth's to %.6f"
                    % (waiting, sum(oa[k] for k in WAITING)))
    # What the plugin says its poll estimate may be off by must hold the
    # truth, and be 0 where the capture shows every wait's start.
    uncertain = float(row["time_poll_uncertain_s"])
    if abs(float(row["time_poll_s"]) - oa["time_poll_s"]) > uncertain + 1.5e-6:
        diff.append("time_poll_s %s is %.6f from the truth, more than its stated +- %.6f"
                    % (row["time_poll_s"], abs(float(row["time_poll_s"]) - oa["time_poll_s"]), uncertain))
    if not oa.get("poll_waits_estimated") and uncertain > 0:
        diff.append("time_poll_uncertain_s %.6f where no wait needs an estimate" % uncertain)
    if row["vantage"] != oa["vantage"]:
        diff.append("vantage %s != %s" % (row["vantage"], oa["vantage"]))
    rate = oa["rate_Bps"] or 0
    if abs(float(row["rate_Bps"]) - rate) > 1e-6 * max(rate, 1):
        diff.append("rate %s != %s" % (row["rate_Bps"], rate))
    if int(row["szx"]) != x["szx"] or int(row["szx_first"]) != x["szx_requested"]:
        diff.append("szx %s/%s != %s/%s" % (row["szx_first"], row["szx"], x["szx_requested"], x["szx"]))
    return diff


def estimate_tolerances(oa):
    """How far the plugin's parts may be from the truth's where the contract
    has the plugin estimate (docs/ota-sessions.md), part by part.

    A poll wait whose datagram the parent (the border router) got from
    Ethernet starts at an instant the radio capture does not show: the
    plugin takes the midpoint between the latest earlier event that bounds
    it and the Data Request. The truth knows the arrival and, per such wait,
    bounds how far that midpoint can be (poll_estimate_bound_s, summed over
    the waits): half the gap between the child's Data Request before and the
    one it was sent after when it arrived after both bounds (it cannot be
    further from the middle of an interval it lies in), else the whole wait.
    The estimate moves that much between time_poll_s and the part the wait
    fell in (network, timeouts or turn-around, whichever), so each of them
    gets the bound, and their sum stays exact (checked apart). With fast
    polls every 100 ms this is about 50 ms per block: a uniform arrival
    gives a wait of about half that gap, so the bound is about the wait
    itself and a plugin that found no poll time at all on such a transfer
    would pass this check: the exact checks on the captures with a visible
    previous hop (multihop, secure, two-meters) are the ones that hold the
    definition to account.

    At the gateway the time the meter waited for timeouts after requests
    that never arrived is an estimate too: each turn-around stretch longer
    than the median by ACK_TIMEOUT counts its excess over the median.
    unseen_estimate_bound_s sums, over the stretches, how far that is from
    the truth's unseen time: where the estimate counts a stretch, the
    distance of its seen part from the median; where it does not, its
    unseen time. It moves between time_unseen_s and time_turnaround_s."""
    tol = {}
    if oa.get("poll_waits_estimated"):
        for k in ("time_poll_s", "time_timeouts_s", "time_network_s", "time_turnaround_s"):
            tol[k] = tol.get(k, 0) + oa["poll_estimate_bound_s"]
    if oa.get("vantage") == "gateway":
        for k in ("time_unseen_s", "time_turnaround_s"):
            tol[k] = tol.get(k, 0) + oa["unseen_estimate_bound_s"]
    return tol


def count_differences(row, oa):
    diff = ["%s %s != %s" % (k, row[k], oa[k]) for k in COUNTS if int(row[k]) != oa[k]]
    if (int(row["complete"]) == 1) != oa["complete"]:   # a TSV row (typed) or a CSV row (text)
        diff.append("complete")
    return diff


def host_differences(row, x):
    oa = x["on_air"]
    diff = count_differences(row, oa)
    for k in TIMES_US:
        late = int(row[k]) - oa[k] if oa[k] is not None else None
        if oa[k] is None and int(row[k]) != -1 or late is not None and not HOST_LATE_US[0] <= late <= HOST_LATE_US[1]:
            diff.append("%s %s is not 0.5-4 ms after %s" % (k, row[k], oa[k]))
    for k in ["duration_s", "rtt_first_median_s", "rtt_last_median_s", "turnaround_median_s"]:
        want = oa[k] if oa[k] is not None else (0 if k == "duration_s" else -1)
        if abs(float(row[k]) - want) > HOST_SPAN_S + 1e-6:
            diff.append("%s %s != %s +- %g" % (k, row[k], want, HOST_SPAN_S))
    return diff


def as_tsv_row(t):
    """A JSON transfer as the plugin's TSV row (strings; none as -1)."""
    row = {}
    for k, v in t.items():
        if isinstance(v, bool):
            row[k] = "1" if v else "0"
        elif v is None:
            row[k] = "-1"
        else:
            row[k] = str(v)
    return row
