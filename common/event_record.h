/* event_record.h: the records `tshark -z meter,ota,events` prints as each
 * frame is read (docs/analyser.md, "Live monitoring"), for the analyser's
 * --live mode and for scripts: one E record per event of a block-wise
 * transfer. The same rules as the -z meter,ota,tsv records
 * (transfer_record.h): a versioned header, a "#E" line naming the columns,
 * readers look columns up by name, columns may be added within a version.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef EVENT_RECORD_H
#define EVENT_RECORD_H

#include "transfer_record.h"

#define METER_EVENT_VERSION "meterscope-events 1"

/* X(name, type, optional, meaning), as in transfer_record.h. */
#define METER_EVENT_COLUMNS(X) \
    X(event, STR, REQ, "`start`, `block`, `retransmission`, `rerequest`, `renegotiation`, `error`, `stall` or `complete`") \
    X(frame, U32, REQ, "the frame it happened in") \
    X(ts_us, I64, REQ, "the frame's time as the statistics take it, microseconds since 1970 UTC") \
    X(transfer, U32, REQ, "the plugin's transfer number (`meter.ota.transfer`)") \
    X(meter, STR, REQ, "the meter's IPv6 address") \
    X(path, STR, REQ, "the URI path, with its leading `/`") \
    X(kind, STR, REQ, "`block2` (download) or `block1` (upload)") \
    X(offset, U32, REQ, "the byte offset of the message's block") \
    X(block_size, U32, REQ, "the transfer's block size now") \
    X(bytes, U32, REQ, "contiguous bytes from offset 0 so far") \
    X(size_hint, I64, OPT, "the image size known so far; empty if none") \
    X(code, STR, REQ, "the message's CoAP code (`2.05`), `GET`/`POST`/... for a request") \
    X(stall_s, DBL, OPT, "`stall`: the silence before this frame, seconds; else empty") \
    X(image, BOOL, REQ, "the resource is a firmware image") \
    X(verified, BOOL, REQ, "`complete`: the image was verified (SHA-256, and the signature when a key is set)")

typedef struct { METER_EVENT_COLUMNS(METER_RECORD_MEMBER) } meter_event_record_t;

extern const meter_record_schema_t meter_event_schema;

/* "# meterscope-events 1" and the "#E" line. */
void meter_event_write_header(GString *out);

#endif
