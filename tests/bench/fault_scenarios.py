#!/usr/bin/env python3
"""fault_scenarios.py BUILD_DIR: the truth of the fault set
(tests/lib/fault_cases.py, the cases of analyzer.verdict_faults): per case
its injected cause, the faulty transfer's outcome, duration, retransmissions
(spurious ones), re-requests, datagrams lost, the truth's duration split and
whether the truth's own numbers show the cause at work. A report, not a
test: run it by hand, e.g. after changing a fault scenario."""
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
import fault_cases as fc  # noqa: E402


def main():
    sim = os.path.join(sys.argv[1], "captures", "meter-sim")
    print("%-26s %-62s %-8s %8s %5s %5s %5s %5s  %s" % (
        "cause", "case", "outcome", "dur_s", "retx", "spur", "rereq", "lost",
        "split air/timeouts/network/turnaround/poll/unseen (s); claim"))
    bad = 0
    with tempfile.TemporaryDirectory() as tmp:
        for i, case in enumerate(fc.CASES):
            truth = fc.generate(sim, case, os.path.join(tmp, "case%d.pcap" % i))
            x = fc.faulty_transfer(truth)
            oa = x["on_air"]
            ok, why = fc.claim_holds(truth, x)
            bad += not ok
            split = "/".join("%.1f" % oa["time_%s_s" % p] for p in fc.PARTS)
            print("%-26s %-62s %-8s %8.1f %5d %5d %5d %5d  %s; %s%s" % (
                truth["injected_cause"], fc.label(case)[:62], x["outcome"], oa["duration_s"] or 0,
                oa["retransmissions"], oa["spurious_retransmissions"], oa["rerequests"], x["datagrams_lost"],
                split, "" if ok else "NOT SHOWN: ", why))
    print("%d of %d cases show their cause in the truth" % (len(fc.CASES) - bad, len(fc.CASES)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
