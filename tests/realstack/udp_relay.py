#!/usr/bin/env python3
"""udp_relay.py: a UDP relay between one CoAP client and one server that
drops and delays datagrams with a seeded random generator, and logs every
datagram it handled. The realstack test's ground truth: what the relay did
is what happened on the path, whatever the CoAP stacks or the analyser say.

  udp_relay.py --listen ADDR PORT --upstream ADDR PORT --source ADDR
               --log FILE --ready FILE [--seed S] [--loss P]
               [--delay-ms LOW HIGH] [--undelayed N] [--max-seconds N]

Datagrams from the client (the last sender on --listen) go to --upstream
from a socket bound to --source; datagrams from upstream go back to the
client. Each direction has its own generator (seeded "S/c2s", "S/s2c"), so
the n-th datagram of a direction meets the same fate whatever the timing of
the other direction. A datagram is dropped with probability P, else sent
after a delay drawn uniformly from [LOW, HIGH] ms; a direction never
reorders (a datagram leaves no earlier than the one before it in its
direction), so the logged delay is the one it really got. The first N
datagrams of each direction (--undelayed) are sent at once (the slow path
spares the first exchange: libcoap 4.3.1's client starts a download over
when a late copy of block 0 comes in the middle of it).

Log, one line per datagram, fields separated by spaces, key=value:
  t=<receive time, s since 1970> dir=c2s|s2c len=<bytes>
  type=CON|NON|ACK|RST code=<c.dd> mid=<n> token=<hex or -> block1=<num/m/size or -> block2=<...>
  action=forwarded delay_ms=<ms> sent=<send time> | action=dropped | action=pending
A line is written when the datagram leaves (forwarded) or is dropped; ones
still queued at exit are logged as pending. The relay stops on SIGTERM or
SIGINT, or by itself after --max-seconds (default 300); stopped, it sends
nothing more but still takes the server's answers to what it sent just
before (they reach the gateway capture) until the server is quiet."""
import argparse
import heapq
import random
import select
import signal
import socket
import sys
import time

DRAIN_QUIET_S = 0.3   # after a stop, this long without a datagram from the server ends it
DRAIN_MAX_S = 2.0

TYPES = ("CON", "NON", "ACK", "RST")


def parse_block(value):
    n = int.from_bytes(value, "big") if value else 0
    return "%d/%d/%d" % (n >> 4, (n >> 3) & 1, 1 << ((n & 7) + 4))


def describe(data):
    """The CoAP header fields of a datagram, as log fields (RFC 7252 3,
    RFC 7959 2.2). A datagram that is not CoAP gets type=? and the rest -."""
    f = {"type": "?", "code": "-", "mid": "-", "token": "-", "block1": "-", "block2": "-"}
    if len(data) < 4 or data[0] >> 6 != 1:
        return f
    tkl = data[0] & 0x0F
    f["type"] = TYPES[(data[0] >> 4) & 3]
    f["code"] = "%d.%02d" % (data[1] >> 5, data[1] & 0x1F)
    f["mid"] = str(int.from_bytes(data[2:4], "big"))
    f["token"] = data[4:4 + tkl].hex() or "-"
    pos, number = 4 + tkl, 0
    while pos < len(data) and data[pos] != 0xFF:
        delta, length = data[pos] >> 4, data[pos] & 0x0F
        pos += 1
        ext = []
        for nib in (delta, length):
            if nib == 13:
                ext.append(data[pos] + 13)
                pos += 1
            elif nib == 14:
                ext.append(int.from_bytes(data[pos:pos + 2], "big") + 269)
                pos += 2
            elif nib == 15:
                return f
            else:
                ext.append(nib)
        number += ext[0]
        value = data[pos:pos + ext[1]]
        pos += ext[1]
        if number == 27:
            f["block1"] = parse_block(value)
        elif number == 23:
            f["block2"] = parse_block(value)
    return f


class Relay:
    def __init__(self, args):
        self.args = args
        fam = socket.AF_INET6
        self.down = socket.socket(fam, socket.SOCK_DGRAM)
        self.down.bind((args.listen[0], int(args.listen[1])))
        self.up = socket.socket(fam, socket.SOCK_DGRAM)
        self.up.bind((args.source, 0))
        self.upstream = (args.upstream[0], int(args.upstream[1]))
        self.client = None
        self.rng = {d: random.Random("%s/%s" % (args.seed, d)) for d in ("c2s", "s2c")}
        self.last_sent = {"c2s": 0.0, "s2c": 0.0}
        self.count = {"c2s": 0, "s2c": 0}
        self.queue = []     # (send time, sequence, direction, data, receive time, fields, delay)
        self.seq = 0
        self.log = open(args.log, "w")
        self.stop = False

    def write(self, t, d, data, f, action):
        self.log.write("t=%.6f dir=%s len=%d type=%s code=%s mid=%s token=%s block1=%s block2=%s %s\n"
                       % (t, d, len(data), f["type"], f["code"], f["mid"], f["token"], f["block1"],
                          f["block2"], action))
        self.log.flush()

    def received(self, d, data):
        now = time.time()
        f = describe(data)
        rng = self.rng[d]
        # Both draws always happen, so a datagram's fate depends only on its
        # place in its direction.
        lost = rng.random() < self.args.loss
        delay = rng.uniform(self.args.delay_ms[0], self.args.delay_ms[1]) / 1000.0
        self.count[d] += 1
        if self.count[d] <= self.args.undelayed:
            delay = 0.0
        if lost:
            self.write(now, d, data, f, "action=dropped")
            return
        when = max(now + delay, self.last_sent[d])
        self.last_sent[d] = when
        self.seq += 1
        heapq.heappush(self.queue, (when, self.seq, d, data, now, f))

    def send_due(self):
        while self.queue and self.queue[0][0] <= time.time():
            _, _, d, data, t, f = heapq.heappop(self.queue)
            if d == "c2s":
                self.up.sendto(data, self.upstream)
            else:
                self.down.sendto(data, self.client)
            sent = time.time()
            self.write(t, d, data, f, "action=forwarded delay_ms=%.3f sent=%.6f" % ((sent - t) * 1000, sent))

    def drain(self):
        """Stopped: nothing more goes out, but the server's answer to a
        request sent just before the stop is still on its way, and the
        gateway capture will show it: it is received (and logged with what
        the relay still holds) until the server has been quiet for
        DRAIN_QUIET_S, DRAIN_MAX_S at most."""
        hard = time.time() + DRAIN_MAX_S
        quiet = time.time() + DRAIN_QUIET_S
        while time.time() < min(quiet, hard):
            try:
                ready, _, _ = select.select([self.up], [], [], max(0.0, min(quiet, hard) - time.time()))
            except InterruptedError:
                continue
            if not ready:
                break
            data, addr = self.up.recvfrom(65535)
            if addr[:2] == self.upstream and self.client:
                self.received("s2c", data)
                quiet = time.time() + DRAIN_QUIET_S

    def run(self):
        with open(self.args.ready, "w") as r:
            r.write("ready\n")
        deadline = time.time() + self.args.max_seconds
        while not self.stop and time.time() < deadline:
            wait = 0.5
            if self.queue:
                wait = max(0.0, min(wait, self.queue[0][0] - time.time()))
            try:
                ready, _, _ = select.select([self.down, self.up], [], [], wait)
            except InterruptedError:
                continue
            for s in ready:
                data, addr = s.recvfrom(65535)
                if s is self.down:
                    self.client = addr
                    self.received("c2s", data)
                elif addr[:2] == self.upstream and self.client:
                    self.received("s2c", data)
            self.send_due()
        self.drain()
        for _, _, d, data, t, f in sorted(self.queue):
            self.write(t, d, data, f, "action=pending")
        self.log.close()


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--listen", nargs=2, required=True, metavar=("ADDR", "PORT"))
    p.add_argument("--upstream", nargs=2, required=True, metavar=("ADDR", "PORT"))
    p.add_argument("--source", required=True)
    p.add_argument("--log", required=True)
    p.add_argument("--ready", required=True)
    p.add_argument("--seed", default="1")
    p.add_argument("--loss", type=float, default=0.0)
    p.add_argument("--delay-ms", nargs=2, type=float, default=(0.0, 0.0), metavar=("LOW", "HIGH"))
    p.add_argument("--undelayed", type=int, default=0)
    p.add_argument("--max-seconds", type=float, default=300)
    relay = Relay(p.parse_args())

    def stop(_sig, _frame):
        relay.stop = True
    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    relay.run()
    return 0


if __name__ == "__main__":
    sys.exit(main())
