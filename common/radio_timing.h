/* radio_timing.h: the radio's rounds and windows, defined once for every
 * part that reads a Thread radio: the plugin's session tracker
 * (plugin/core/ota_track*.c), its pairing of the two vantage points of a
 * merged file (plugin/core/vantage.c) and the analyser's reader of a radio
 * capture for --vantage (analyzer/vantage_read.c). IEEE 802.15.4-2015,
 * 2.4 GHz O-QPSK as Thread uses it: 250 kbit/s, 16 us a symbol. All in
 * microseconds; the analyser, which counts in seconds, divides by 1e6.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef RADIO_TIMING_H
#define RADIO_TIMING_H

/* ---- the PHY and the MAC, as the standard sets them ---- */

/* One byte on the air at 250 kbit/s. */
#define RADIO_BYTE_US 32
/* What precedes the PSDU on the air (preamble, SFD, length): a frame's air
 * time is (PSDU + this) bytes. */
#define RADIO_PHY_HEADER_BYTES 6
/* aTurnaroundTime (12 symbols): a receiver starts its ACK this long after
 * the frame it acknowledges ended. */
#define RADIO_TURNAROUND_US 192
/* macAckWaitDuration (54 symbols): how long a sender waits after its frame
 * for the ACK before it sends the frame again. */
#define RADIO_ACK_WAIT_US 864
/* aUnitBackoffPeriod (20 symbols) and a clear channel assessment (8). */
#define RADIO_BACKOFF_US 320
#define RADIO_CCA_US 128
/* The longest frame on the air: a 127-byte PSDU and its PHY header. */
#define RADIO_MAX_FRAME_US ((127 + RADIO_PHY_HEADER_BYTES) * RADIO_BYTE_US)
/* macMaxFrameRetries: a frame is sent at most this many times again; sent
 * RADIO_MAC_TRANSMISSIONS times unacknowledged, its sender gave up. */
#define RADIO_MAX_FRAME_RETRIES 3
#define RADIO_MAC_TRANSMISSIONS (1 + RADIO_MAX_FRAME_RETRIES)
/* The longest one transmission of a frame takes, retry to retry: every
 * CSMA-CA backoff (macMaxCSMABackoffs 4: 7 + 15 + 31 + 31 + 31 units at
 * macMinBE 3, macMaxBE 5) and its CCA, the longest frame, aTurnaroundTime
 * and macAckWaitDuration. */
#define RADIO_RETRY_CYCLE_US \
    (115 * RADIO_BACKOFF_US + 5 * RADIO_CCA_US + RADIO_MAX_FRAME_US + RADIO_TURNAROUND_US + RADIO_ACK_WAIT_US)

/* ---- how a capture stamps the frames ---- */

/* How much later than the standard allows a host may stamp a frame: USB
 * sniffers deliver frames 0.5-4 ms after their end, each with its own delay
 * (but in order). */
#define RADIO_HOST_STAMP_SLACK_US 5000
/* A sniffer's own stamps (a frame's start or end) are good to this. */
#define RADIO_SNIFFER_STAMP_SLACK_US 200
/* The same bytes from the same sender this close: the same transmission
 * captured twice (two sniffers merged), not a MAC retry, which comes a
 * turnaround, an ACK wait and a backoff later at least. */
#define RADIO_SNIFFER_DUP_US 500

/* ---- MAC retries: the same frame sent again ---- */

/* Between two transmissions of one frame: one cycle, as a host stamps it. */
#define RADIO_RETRY_GAP_US (RADIO_RETRY_CYCLE_US + RADIO_HOST_STAMP_SLACK_US)
/* From a frame's first transmission to its last retry: the same bytes later
 * than this are a new frame. */
#define RADIO_RETRY_WINDOW_US (RADIO_MAX_FRAME_RETRIES * RADIO_RETRY_CYCLE_US + RADIO_HOST_STAMP_SLACK_US)

/* ---- rounds: one transmission of a message, forwarded hop by hop ---- */

/* The copies of one round follow each other on the mesh's links, each
 * within this of the one before: a router forwards a datagram at once
 * (milliseconds), a sleepy node's parent at the node's next poll, fast
 * while the node waits for an answer; 5 s leaves room for a busy channel.
 * What ends a round is a copy on a link it already used (the sender sent
 * the message again), whatever the time: this window only bounds how far
 * apart a round's copies may lie (and, for the tracker, how far another
 * hop's copy of a datagram is looked for). */
#define RADIO_HOP_WINDOW_US 5000000
/* Where the copies cannot be told apart by link (a merged file's pairing,
 * plugin/core/vantage.c, keys a message by its bytes alone), copies of the
 * same bytes within this of the previous one are one round: shorter than
 * CoAP's ACK_TIMEOUT (2 s, RFC 7252 4.8), so a retransmission is a round of
 * its own, longer than a round's hops and MAC retries take. */
#define RADIO_SAME_BYTES_ROUND_US 1000000
/* A sleepy node's parent sends it a frame it holds within this of the
 * node's Data Request. */
#define RADIO_POLL_FETCH_US 50000
/* RFC 4944 5.3: a receiver gives up a datagram's reassembly this long after
 * its first fragment; a later fragment with the same key is a new datagram. */
#define RADIO_REASSEMBLY_US 60000000

/* ---- two vantage points: the radio and the gateway's IP side ---- */

/* A message's copy at the other vantage point lies within this of where
 * the clocks' offset puts it (plugin/core/vantage.c): the backhaul and a
 * border router's queue take seconds at worst. */
#define RADIO_PAIR_WINDOW_US 60000000

#endif
