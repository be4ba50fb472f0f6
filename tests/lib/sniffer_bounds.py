"""What a transfer's record says of the counts a perfect sniffer would have
given, when its sniffer missed frames (docs/ota-sessions.md, "Frames the
sniffer missed"): each count is exact, or lies in a range the record's
uncertainty columns give. The record's frames_missed_high is its own claim:
a caller that knows a bound on it (high_cap) gets a violation where the
record goes beyond, and the ranges are never wider than the cap allows."""

# Counts of things captured: a thing whose every frame was missed is not
# counted, and each such thing is at least one missed frame.
LOWER_BOUNDS = ("requests", "retransmissions", "rerequests", "mac_retries", "datagram_copies")
# Counts of losses: too high by what the sniffer may have missed of their
# delivery (the uncertain column), too low by the lost things missed whole.
UPPER_BOUNDS = {"frames_unacked": "frames_unacked_uncertain", "fragments_lost": "frames_unacked_uncertain",
                "request_copies_lost": "copies_lost_uncertain", "response_copies_lost": "copies_lost_uncertain"}
# Blocks whose every message the capture missed, and that no later block's
# request proves (the last one, say), are not counted either: each of them
# is at least one missed frame of up to 1024 bytes.
BLOCK_BOUNDS = {"blocks": 1, "bytes": 1024}
COUNTS = LOWER_BOUNDS + tuple(UPPER_BOUNDS) + tuple(BLOCK_BOUNDS)


def perfect_range(row, column, high_cap=None):
    """(low, high) for the perfect sniffer's value of column, given row (its
    frames_missed_high no more than high_cap)."""
    v = int(row[column])
    missed = int(row["frames_missed_high"])
    if high_cap is not None:
        missed = min(missed, high_cap)
    if column in LOWER_BOUNDS:
        return v, v + missed
    if column in UPPER_BOUNDS:
        return v - int(row[UPPER_BOUNDS[column]]), v + missed
    return v, v + missed * BLOCK_BOUNDS[column]


def violations(row, perfect, high_cap=None):
    """The counts of row whose range misses the perfect value (a perfect
    sniffer's record, or the truth's on_air numbers), and a
    frames_missed_high above high_cap."""
    out = []
    if high_cap is not None and int(row["frames_missed_high"]) > high_cap:
        out.append("frames_missed_high %s: more than the cap %d" % (row["frames_missed_high"], high_cap))
    for c in COUNTS:
        lo, hi = perfect_range(row, c, high_cap)
        if not lo <= int(perfect[c]) <= hi:
            out.append("%s %s: range [%d, %d] lacks the perfect %s" % (c, row[c], lo, hi, perfect[c]))
    return out
