"""ota_compare.py: what differs between a transfer record and the generator's
truth. The record is a row of `-z meter,ota,tsv` (tshark_view.ota_tsv), or a
transfer of the analyser's JSON report turned into one (as_tsv_row); the
truth is the transfer's `on_air` record (docs/ota-sessions.md). Counts must
be equal, times to the microsecond (the capture's resolution), rates to
1e-6 relative; host timestamps within the host's latency."""

COUNTS = ["blocks", "bytes", "requests", "retransmissions", "spurious_retransmissions", "rerequests", "mac_retries",
          "datagrams_fragmented", "datagrams_incomplete", "fragments_lost", "stalls", "datagram_copies",
          "frames_sent", "frames_unacked", "request_copies", "request_copies_lost", "request_frames_complete",
          "response_copies", "response_copies_lost", "response_frames_complete", "response_bytes_complete",
          "response_first_lost", "response_later_frames"]
TIMES_US = ["first_request_us", "last_response_us", "last_activity_us"]
SECONDS = ["duration_s", "rtt_first_median_s", "rtt_first_p95_s", "rtt_last_median_s", "rtt_last_p95_s",
           "turnaround_median_s", "turnaround_p95_s", "time_air_s", "time_timeouts_s", "time_network_s",
           "time_turnaround_s", "stalled_s"]
SPLIT = ["time_air_s", "time_timeouts_s", "time_network_s", "time_turnaround_s"]

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
    for k in SECONDS:
        want = oa[k] if oa[k] is not None else (0 if k == "duration_s" else -1)
        if abs(float(row[k]) - want) > 1.5e-6:
            diff.append("%s %s != %s" % (k, row[k], want))
    parts = sum(float(row[k]) for k in SPLIT)
    if abs(parts - float(row["duration_s"])) > 4e-6:
        diff.append("time split adds up to %.6f, not the duration %s" % (parts, row["duration_s"]))
    rate = oa["rate_Bps"] or 0
    if abs(float(row["rate_Bps"]) - rate) > 1e-6 * max(rate, 1):
        diff.append("rate %s != %s" % (row["rate_Bps"], rate))
    if int(row["szx"]) != x["szx"] or int(row["szx_first"]) != x["szx_requested"]:
        diff.append("szx %s/%s != %s/%s" % (row["szx_first"], row["szx"], x["szx_requested"], x["szx"]))
    return diff


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
