/* wpan_frame.h: IEEE 802.15.4-2006 MAC frames as the sniffer sees them:
 * data, acknowledgement and Data Request command frames, PAN ID compression,
 * short and extended addresses, FCS (CRC-16/KERMIT, ITU-T, little-endian) and
 * Thread MAC security (AES-CCM*, ENC-MIC-32, key id mode 1) via libgcrypt.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef WPAN_FRAME_H
#define WPAN_FRAME_H
#include <glib.h>

#define WPAN_FRAME_MAX 127           /* aMaxPHYPacketSize */
#define WPAN_FT_DATA   1
#define WPAN_FT_ACK    2
#define WPAN_FT_CMD    3
#define WPAN_CMD_DATA_REQUEST 0x04

enum wpan_addr_mode { WPAN_ADDR_NONE = 0, WPAN_ADDR_SHORT = 2, WPAN_ADDR_EXT = 3 };

typedef struct {
    guint8   frame_type;             /* WPAN_FT_* */
    gboolean frame_pending;
    gboolean ack_request;
    guint8   seq;
    guint16  pan_id;                 /* destination PAN; source PAN compressed */
    enum wpan_addr_mode dst_mode, src_mode;
    guint16  dst_short, src_short;
    guint64  dst_ext, src_ext;       /* EUI-64 as a number: 0x0011..77 is 00:11:..:77 */
    /* Security (used when key != NULL in wpan_frame_build). */
    guint32  frame_counter;
    guint8   key_index;
} wpan_hdr_t;

/* The MAC key Thread derives from the network key: HMAC-SHA256(network key,
 * key_sequence (u32 big-endian) || "Thread"); MLE key = bytes 0..15, MAC key =
 * bytes 16..31. */
gboolean wpan_thread_mac_key(const guint8 network_key[16], guint32 key_sequence,
                             guint8 mac_key_out[16]);

/* Bytes a frame with this header adds around its MAC payload: MAC header,
 * auxiliary security header and MIC when secured, FCS. */
gsize wpan_overhead(const wpan_hdr_t *h, gboolean secured);

/* Builds the PSDU (MAC header .. FCS). For a command frame, payload[0] is the
 * command identifier. With mac_key != NULL the frame is secured (version
 * 2006, level 5 ENC-MIC-32, key id mode 1, key_index from h); the CCM* nonce
 * uses nonce_src_ext (the sender's EUI-64) whatever the source address mode.
 * Returns NULL if the result would exceed 127 bytes. */
GByteArray *wpan_frame_build(const wpan_hdr_t *h, const guint8 *payload, gsize len,
                             const guint8 *mac_key, guint64 nonce_src_ext);

/* Immediate acknowledgement: 5 bytes (FCF, seq, FCS). */
GByteArray *wpan_ack_build(guint8 seq, gboolean frame_pending);

/* CRC-16/KERMIT as transmitted in the FCS field (little-endian on air). */
guint16 wpan_fcs(const guint8 *data, gsize len);

#endif
