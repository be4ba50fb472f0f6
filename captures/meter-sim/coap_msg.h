/* coap_msg.h: CoAP message encoding (RFC 7252) with the block-wise options
 * of RFC 7959, as the simulated meter and gateway put them on the wire.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef COAP_MSG_H
#define COAP_MSG_H
#include <glib.h>

enum coap_type { COAP_CON = 0, COAP_NON = 1, COAP_ACK = 2, COAP_RST = 3 };

#define COAP_CODE(c, d)        (((c) << 5) | (d))
#define COAP_GET               COAP_CODE(0, 1)
#define COAP_POST              COAP_CODE(0, 2)
#define COAP_EMPTY             0
#define COAP_CHANGED           COAP_CODE(2, 4)
#define COAP_CONTENT           COAP_CODE(2, 5)
#define COAP_CONTINUE          COAP_CODE(2, 31)
#define COAP_BAD_REQUEST       COAP_CODE(4, 0)
#define COAP_BAD_OPTION        COAP_CODE(4, 2)
#define COAP_REQUEST_TOO_LARGE COAP_CODE(4, 13)

#define COAP_CF_OCTET_STREAM 42
#define COAP_CF_CBOR         60
#define COAP_CF_SENML_CBOR   112

typedef struct {
    gboolean present;
    guint32  num;
    gboolean more;
    guint8   szx;              /* 0..7 (7 is reserved; sent only to test gateways).
                                  NUM 0, M 0, SZX 0 is the zero-length option. */
} coap_block_t;

typedef struct {
    enum coap_type type;
    guint8   code;
    guint16  mid;
    guint8   token[8];
    guint8   tkl;
    const char *uri_path;      /* "a/b/c": one Uri-Path option per segment; NULL none */
    const char *uri_query;     /* one Uri-Query option; NULL none */
    gint     content_format;   /* -1: none */
    coap_block_t block2, block1;
    gint64   size2;            /* -1: none */
    const guint8 *payload;
    gsize    payload_len;
} coap_msg_t;

/* A received message; strings point into path/query buffers, payload into
 * the datagram. The simulated endpoints parse what they receive like real
 * ones, rather than peeking at each other's state. */
typedef struct {
    enum coap_type type;
    guint8   code;
    guint16  mid;
    guint8   token[8];
    guint8   tkl;
    char     path[128];        /* segments joined with '/' */
    char     query[64];
    gint     content_format;
    coap_block_t block2, block1;
    const guint8 *payload;
    gsize    payload_len;
} coap_rx_t;

void        coap_msg_init(coap_msg_t *m);
/* FALSE for a message the simulator itself could not have sent. */
gboolean    coap_msg_decode(const guint8 *buf, gsize len, coap_rx_t *out);
GByteArray *coap_msg_encode(const coap_msg_t *m);
guint32     coap_block_size(guint8 szx);  /* 2^(szx+4); 2048 for the reserved 7 */

#endif
