"""ota_compare.py: what differs between a transfer record and the generator's
truth. The record is a row of `-z meter,ota,tsv` (tshark_view.ota_tsv), or a
transfer of the analyser's JSON report turned into one (as_tsv_row); the
truth is the transfer's `on_air` record (docs/ota-sessions.md). Counts must
be equal, times to the microsecond (the capture's resolution), rates to
1e-6 relative; host timestamps within the host's latency. The parts of the
time split the plugin estimates (a poll wait whose datagram came from
Ethernet, the gateway view's unseen time) within the bounds the truth
gives for such an estimate, the estimated poll time at least half the
truth's and the uncertainty the plugin states capped; the split's sum
exactly."""

COUNTS = ["blocks", "bytes", "requests", "retransmissions", "spurious_retransmissions", "rerequests", "mac_retries",
          "datagrams_fragmented", "datagrams_incomplete", "fragments_lost", "stalls", "datagram_copies",
          "frames_sent", "frames_unacked", "request_copies", "request_copies_lost", "request_frames_complete",
          "response_copies", "response_copies_lost", "response_frames_complete", "response_bytes_complete",
          "response_first_lost", "response_later_frames", "duplicate_responses", "error_responses"]
TIMES_US = ["first_request_us", "last_response_us", "last_activity_us"]
SECONDS = ["duration_s", "rtt_first_median_s", "rtt_first_p95_s", "rtt_last_median_s", "rtt_last_p95_s",
           "turnaround_median_s", "turnaround_p95_s", "time_air_s", "time_timeouts_s", "time_network_s",
           "time_turnaround_s", "time_poll_s", "time_unseen_s", "stalled_s"]
SPLIT = ["time_air_s", "time_timeouts_s", "time_network_s", "time_turnaround_s", "time_poll_s", "time_unseen_s"]
WAITING = SPLIT[1:]   # every part but the air: what an estimate moves time between

ESTIMATED = ["time_poll_s", "time_unseen_s"]   # the parts an estimate moves time into and out of
# The midpoint of an interval that holds a datagram's arrival is at least
# half the wait from it to the Data Request away from that Data Request, so an
# estimated poll time is at least half the true one: a plugin that found no
# poll time, or half of it, fails however wide the truth's bound.
POLL_LOW_SHARE = 0.5
# What the plugin says its poll estimate may be off by, at most this many
# times the truth's own bound for the same midpoint rule (the plugin's
# intervals start at its bounding event, which can lie before the truth's:
# 1.23 times at most on the committed and generated captures): a stated
# uncertainty of any size would hold every truth and say nothing.
POLL_UNCERTAIN_CAP = 1.5

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
    diff = count_differences(row, oa) + meter_side_differences(row, x)
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
    diff += estimate_differences(row, oa)
    # What the plugin says its poll estimate may be off by must hold the
    # truth, be no wider than the cap, and be 0 where the capture shows
    # every wait's start.
    uncertain = float(row["time_poll_uncertain_s"])
    if abs(float(row["time_poll_s"]) - oa["time_poll_s"]) > uncertain + 1.5e-6:
        diff.append("time_poll_s %s is %.6f from the truth, more than its stated +- %.6f"
                    % (row["time_poll_s"], abs(float(row["time_poll_s"]) - oa["time_poll_s"]), uncertain))
    if uncertain > POLL_UNCERTAIN_CAP * oa.get("poll_estimate_bound_s", 0) + 1.5e-6:
        diff.append("time_poll_uncertain_s %.6f is more than %g times the truth's bound %.6f"
                    % (uncertain, POLL_UNCERTAIN_CAP, oa.get("poll_estimate_bound_s", 0)))
    if not oa.get("poll_waits_estimated") and uncertain > 0:
        diff.append("time_poll_uncertain_s %.6f where no wait needs an estimate" % uncertain)
    if row["kind"] != x["kind"]:
        diff.append("kind %s != %s" % (row["kind"], x["kind"]))
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
    would pass this check alone: estimate_differences holds the estimate
    to at least half the truth's poll time and the other parts to what the
    estimate moved, and the exact checks on the captures with a visible
    previous hop (multihop, secure, two-meters) hold the definition to
    account.

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


def estimate_differences(row, oa):
    """What the truth's bounds (estimate_tolerances) leave open: an estimate
    moves time only between an estimated part (poll, unseen) and the part
    its wait fell in, so the other parts are off by no more than the
    estimated ones together; an estimated poll time is at least half the
    truth's (POLL_LOW_SHARE); a transfer without poll waits has no poll
    time."""
    diff = []
    moved = sum(abs(float(row[k]) - oa[k]) for k in ESTIMATED)
    others = sum(abs(float(row[k]) - oa[k]) for k in WAITING if k not in ESTIMATED)
    if others > moved + 4e-6:
        diff.append("timeouts, network and turn-around are %.6f from the truth's, the estimated parts only %.6f"
                    % (others, moved))
    poll = float(row["time_poll_s"])
    if poll < POLL_LOW_SHARE * oa["time_poll_s"] - 1.5e-6:
        diff.append("time_poll_s %s is less than %g of the truth's %.6f" % (row["time_poll_s"], POLL_LOW_SHARE,
                                                                           oa["time_poll_s"]))
    if oa.get("poll_waits", 0) == 0 and poll > 0:
        diff.append("time_poll_s %s where the truth has no poll wait" % row["time_poll_s"])
    return diff


def meter_side_differences(row, x):
    """The truth's duplicate_responses counts what the meter did (responses
    it received for a Message ID it no longer waited for), which no capture
    shows exactly; each one is a response round after the first of its
    message (counted in the record's duplicate_responses), or the first
    answer to a Message ID the meter had given up on, of which there is at
    most one per re-request, and one more where the transfer did not
    complete."""
    most = int(row["duplicate_responses"]) + int(row["rerequests"]) + (int(row["complete"]) != 1)
    if x["duplicate_responses"] > most:
        return ["the meter received %d duplicate responses, more than the %d the record allows (duplicate_responses "
                "%s, rerequests %s)" % (x["duplicate_responses"], most, row["duplicate_responses"], row["rerequests"])]
    return []


def count_differences(row, oa):
    diff = ["%s %s != %s" % (k, row[k], oa[k]) for k in COUNTS if int(row[k]) != oa[k]]
    if (int(row["complete"]) == 1) != oa["complete"]:   # a TSV row (typed) or a CSV row (text)
        diff.append("complete")
    return diff


def host_differences(row, x):
    oa = x["on_air"]
    diff = count_differences(row, oa) + meter_side_differences(row, x)
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
