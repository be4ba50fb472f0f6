/* coap_options.h: the one reader of a CoAP message's header, token and
 * options (RFC 7252 3 and 3.1) for the plugin (plugin/core/coap_view.c,
 * which hands it the bytes it checked are in its tvb) and the analyser
 * (analyzer/coap_header.c, a UDP payload from stock tshark's fields).
 *
 * Plain C over a bounded byte buffer: no epan, no GLib. No length in the
 * message is trusted: the token length, every option's delta and length
 * extension and its value are checked against the end of the buffer before
 * a byte of them is read. It says where each option's value lies; what an
 * option means, and which it keeps, is the caller's.
 *
 * Header-only, as utc_text.h: the plugin and the analyser share no library.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef METER_COAP_OPTIONS_H
#define METER_COAP_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The option numbers meterscope reads (RFC 7252 5.10, RFC 7959 2.1 and 4). */
enum {
    METER_COAP_OPT_URI_PATH = 11,
    METER_COAP_OPT_CONTENT_FORMAT = 12,
    METER_COAP_OPT_URI_QUERY = 15,
    METER_COAP_OPT_BLOCK2 = 23,
    METER_COAP_OPT_BLOCK1 = 27,
    METER_COAP_OPT_SIZE2 = 28,
    METER_COAP_OPT_SIZE1 = 60,
};

/* One message being read: its header once meter_coap_read_header() took
 * it, then the walk through its options. */
typedef struct {
    const uint8_t *buf;
    size_t         len;
    uint8_t        type;         /* 0 CON, 1 NON, 2 ACK, 3 RST */
    uint8_t        code;         /* class << 5 | detail */
    uint16_t       mid;
    uint8_t        tkl;          /* 0 to 8 */
    const uint8_t *token;        /* tkl bytes of buf */
    size_t         pos;          /* the next option's first byte */
    uint32_t       number;       /* the last option's number (the deltas' sum) */
    bool           marker;       /* the options ended at the payload marker */
    size_t         payload;      /* then the payload's first byte: len when the marker is the last byte */
} meter_coap_reader_t;

typedef struct {
    uint32_t       number;
    const uint8_t *value;        /* length bytes of the buffer */
    size_t         offset;       /* of value from the start of the buffer */
    size_t         length;
} meter_coap_option_t;

typedef enum {
    METER_COAP_OPTION,           /* *o is the next option */
    METER_COAP_END,              /* no more options: the buffer's end, or the payload marker (r->marker) */
    METER_COAP_BAD,              /* a malformed option: nibble 15, an extension or a value beyond the buffer */
} meter_coap_next_t;

/* The fixed header and the token of buf[0, len): false when these bytes are
 * no CoAP message (fewer than 4, a version other than 1, a token length
 * over 8 or beyond the buffer). */
static inline bool meter_coap_read_header(meter_coap_reader_t *r, const uint8_t *buf, size_t len)
{
    *r = (meter_coap_reader_t){ .buf = buf, .len = len };
    if (len < 4 || buf[0] >> 6 != 1 || (buf[0] & 0x0f) > 8 || 4u + (buf[0] & 0x0fu) > len)
        return false;
    r->type = (buf[0] >> 4) & 3;
    r->tkl = buf[0] & 0x0f;
    r->code = buf[1];
    r->mid = (uint16_t)(buf[2] << 8 | buf[3]);
    r->token = buf + 4;
    r->pos = 4u + r->tkl;
    return true;
}

/* An option's delta or length nibble with its extension bytes (RFC 7252
 * 3.1): false for 15 (reserved outside the payload marker) or an extension
 * beyond the buffer. */
static inline bool meter_coap_extended_(meter_coap_reader_t *r, unsigned nibble, uint32_t *out)
{
    if (nibble < 13) {
        *out = nibble;
    } else if (nibble == 13 && r->len - r->pos >= 1) {
        *out = 13u + r->buf[r->pos];
        r->pos += 1;
    } else if (nibble == 14 && r->len - r->pos >= 2) {
        *out = 269u + ((uint32_t)r->buf[r->pos] << 8 | r->buf[r->pos + 1]);
        r->pos += 2;
    } else {
        return false;
    }
    return true;
}

/* The next option. Each one takes at least a byte, so a walk ends. */
static inline meter_coap_next_t meter_coap_next_option(meter_coap_reader_t *r, meter_coap_option_t *o)
{
    uint32_t delta, length;

    if (r->pos >= r->len)
        return METER_COAP_END;
    uint8_t head = r->buf[r->pos++];
    if (head == 0xff) {
        r->marker = true;
        r->payload = r->pos;
        r->pos = r->len;
        return METER_COAP_END;
    }
    if (!meter_coap_extended_(r, head >> 4, &delta) || !meter_coap_extended_(r, head & 0x0f, &length) ||
        length > r->len - r->pos)
        return METER_COAP_BAD;
    r->number += delta;
    o->number = r->number;
    o->offset = r->pos;
    o->length = length;
    o->value = r->buf + r->pos;
    r->pos += length;
    return METER_COAP_OPTION;
}

/* An option's value as an unsigned integer (RFC 7252 3.2) from its first
 * max_bytes bytes at most (and 8). */
static inline uint64_t meter_coap_option_uint(const meter_coap_option_t *o, size_t max_bytes)
{
    uint64_t v = 0;

    for (size_t i = 0; i < o->length && i < max_bytes && i < 8; i++)
        v = v << 8 | o->value[i];
    return v;
}

/* A Block1 or Block2 option (RFC 7959 2.2), from its first 3 bytes at most. */
typedef struct {
    uint32_t num;
    bool     more;
    uint8_t  szx;
} meter_coap_block_value_t;

static inline meter_coap_block_value_t meter_coap_option_block(const meter_coap_option_t *o)
{
    uint64_t v = meter_coap_option_uint(o, 3);

    return (meter_coap_block_value_t){ (uint32_t)(v >> 4), (v & 0x08) != 0, (uint8_t)(v & 0x07) };
}

#endif
