/* wpan_frame.c: IEEE 802.15.4 MAC frames (data, ack, MAC command) as a
 * sniffer sees them, with FCS and Thread MAC security.
 *
 * Follows IEEE 802.15.4-2006 section 7.2 (frame formats: FCF, addressing,
 * PAN ID compression, FCS) and 7.6 (security: auxiliary security header,
 * CCM* nonce, authentication/encryption coverage), and the Thread 1.x
 * specification for the MAC key derivation (HMAC-SHA256 of the key sequence).
 * The byte layout is checked against Wireshark 4.0's packet-ieee802154.c,
 * which decrypts these frames with a "Thread hash" key.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "wpan_frame.h"
#include "gcrypt_init.h"

#include <string.h>
#include <gcrypt.h>

/* Frame control field bits (802.15.4-2006 7.2.1.1). */
#define FCF_SECURITY      0x0008
#define FCF_FRAME_PENDING 0x0010
#define FCF_ACK_REQUEST   0x0020
#define FCF_PANID_COMP    0x0040
#define FCF_DST_MODE_SHIFT 10
#define FCF_VERSION_SHIFT  12
#define FCF_SRC_MODE_SHIFT 14
#define FCF_VERSION_2003  0
#define FCF_VERSION_2006  1

/* Security as Thread uses it: level 5 (ENC-MIC-32), key id mode 1. */
#define SEC_LEVEL        5
#define SEC_KEY_ID_MODE  1
#define SEC_CONTROL      (SEC_LEVEL | (SEC_KEY_ID_MODE << 3))   /* 0x0d */
#define SEC_AUX_LEN      6      /* control, frame counter (4), key index */
#define SEC_MIC_LEN      4
#define CCM_NONCE_LEN    13
#define FCS_LEN          2

guint16 wpan_fcs(const guint8 *data, gsize len)
{
    /* CRC-16/KERMIT: ITU-T polynomial, reflected (0x8408), init 0, no
     * final XOR; transmitted low byte first (802.15.4-2006 7.2.1.9). */
    guint16 crc = 0;

    for (gsize i = 0; i < len; i++) {
        crc ^= data[i];
        for (int b = 0; b < 8; b++)
            crc = (crc & 1) ? (guint16)((crc >> 1) ^ 0x8408) : (guint16)(crc >> 1);
    }
    return crc;
}

gboolean wpan_thread_mac_key(const guint8 network_key[16], guint32 key_sequence,
                             guint8 mac_key_out[16])
{
    gcry_md_hd_t md;
    guint8 msg[10];
    const guint8 *digest;

    g_return_val_if_fail(network_key != NULL && mac_key_out != NULL, FALSE);
    sim_gcrypt_init();

    /* Thread: HMAC-SHA256(masterkey, Key Sequence (BE) || "Thread"). */
    msg[0] = (guint8)(key_sequence >> 24);
    msg[1] = (guint8)(key_sequence >> 16);
    msg[2] = (guint8)(key_sequence >> 8);
    msg[3] = (guint8)key_sequence;
    memcpy(msg + 4, "Thread", 6);

    if (gcry_md_open(&md, GCRY_MD_SHA256, GCRY_MD_FLAG_HMAC) != 0)
        return FALSE;
    if (gcry_md_setkey(md, network_key, 16) != 0) {
        gcry_md_close(md);
        return FALSE;
    }
    gcry_md_write(md, msg, sizeof msg);
    digest = gcry_md_read(md, GCRY_MD_SHA256);
    if (digest == NULL) {
        gcry_md_close(md);
        return FALSE;
    }
    /* Bytes 0..15 are the MLE key, 16..31 the MAC key. */
    memcpy(mac_key_out, digest + 16, 16);
    gcry_md_close(md);
    return TRUE;
}

static gsize addr_len(enum wpan_addr_mode m)
{
    switch (m) {
    case WPAN_ADDR_SHORT: return 2;
    case WPAN_ADDR_EXT:   return 8;
    default:              return 0;
    }
}

/* PAN ID compression applies when both addresses are present (7.2.1.1.5):
 * then only the destination PAN ID is sent. */
static gboolean panid_compressed(const wpan_hdr_t *h)
{
    return h->dst_mode != WPAN_ADDR_NONE && h->src_mode != WPAN_ADDR_NONE;
}

static gsize mhr_len(const wpan_hdr_t *h, gboolean secured)
{
    gsize n = 3;                                   /* FCF + sequence number */

    if (h->dst_mode != WPAN_ADDR_NONE)
        n += 2 + addr_len(h->dst_mode);
    if (h->src_mode != WPAN_ADDR_NONE)
        n += (panid_compressed(h) ? 0 : 2) + addr_len(h->src_mode);
    if (secured)
        n += SEC_AUX_LEN;
    return n;
}

gsize wpan_overhead(const wpan_hdr_t *h, gboolean secured)
{
    g_return_val_if_fail(h != NULL, 0);
    return mhr_len(h, secured) + (secured ? SEC_MIC_LEN : 0) + FCS_LEN;
}

static void put_le(GByteArray *out, guint64 v, guint n)
{
    guint8 b[8];

    for (guint i = 0; i < n; i++)
        b[i] = (guint8)(v >> (8 * i));
    g_byte_array_append(out, b, n);
}

static void put_addr(GByteArray *out, enum wpan_addr_mode m, guint16 s, guint64 e)
{
    /* Addresses are little-endian on air. */
    if (m == WPAN_ADDR_SHORT)
        put_le(out, s, 2);
    else if (m == WPAN_ADDR_EXT)
        put_le(out, e, 8);
}

static void append_fcs(GByteArray *f)
{
    put_le(f, wpan_fcs(f->data, f->len), 2);
}

/* AES-CCM* over frame f (MHR incl. aux header followed by the plaintext):
 * bytes [0, a_len) are authenticated only, the rest is encrypted in place
 * and the 4-byte MIC is appended. */
static gboolean ccm_star_secure(GByteArray *f, gsize a_len, const guint8 *key,
                                guint64 nonce_src_ext, guint32 frame_counter)
{
    gcry_cipher_hd_t hd;
    guint8 nonce[CCM_NONCE_LEN];
    guint8 mic[SEC_MIC_LEN];
    guint64 lengths[3];
    gsize m_len = f->len - a_len;
    gboolean ok = FALSE;

    /* 802.15.4-2006 7.6.3.2: source EUI-64 and frame counter, both
     * big-endian here (unlike the MAC header), then the security level. */
    for (int i = 0; i < 8; i++)
        nonce[i] = (guint8)(nonce_src_ext >> (56 - 8 * i));
    nonce[8] = (guint8)(frame_counter >> 24);
    nonce[9] = (guint8)(frame_counter >> 16);
    nonce[10] = (guint8)(frame_counter >> 8);
    nonce[11] = (guint8)frame_counter;
    nonce[12] = SEC_LEVEL;

    lengths[0] = m_len;
    lengths[1] = a_len;
    lengths[2] = SEC_MIC_LEN;

    sim_gcrypt_init();
    if (gcry_cipher_open(&hd, GCRY_CIPHER_AES128, GCRY_CIPHER_MODE_CCM, 0) != 0)
        return FALSE;
    if (gcry_cipher_setkey(hd, key, 16) == 0 &&
        gcry_cipher_setiv(hd, nonce, sizeof nonce) == 0 &&
        gcry_cipher_ctl(hd, GCRYCTL_SET_CCM_LENGTHS, lengths, sizeof lengths) == 0 &&
        gcry_cipher_authenticate(hd, f->data, a_len) == 0 &&
        (m_len == 0 || gcry_cipher_encrypt(hd, f->data + a_len, m_len, NULL, 0) == 0) &&
        gcry_cipher_gettag(hd, mic, sizeof mic) == 0) {
        g_byte_array_append(f, mic, sizeof mic);
        ok = TRUE;
    }
    gcry_cipher_close(hd);
    return ok;
}

GByteArray *wpan_frame_build(const wpan_hdr_t *h, const guint8 *payload, gsize len,
                             const guint8 *mac_key, guint64 nonce_src_ext)
{
    gboolean secured = mac_key != NULL;
    guint16 fcf;
    gsize a_len;
    GByteArray *f;

    g_return_val_if_fail(h != NULL, NULL);
    g_return_val_if_fail(payload != NULL || len == 0, NULL);
    /* A command frame needs at least its command identifier. */
    if (h->frame_type == WPAN_FT_CMD && len < 1)
        return NULL;
    if (len > WPAN_FRAME_MAX || wpan_overhead(h, secured) + len > WPAN_FRAME_MAX)
        return NULL;

    fcf = h->frame_type & 0x7;
    if (secured)
        fcf |= FCF_SECURITY;
    if (h->frame_pending)
        fcf |= FCF_FRAME_PENDING;
    if (h->ack_request)
        fcf |= FCF_ACK_REQUEST;
    if (panid_compressed(h))
        fcf |= FCF_PANID_COMP;
    fcf |= (guint16)((h->dst_mode & 0x3) << FCF_DST_MODE_SHIFT);
    fcf |= (guint16)((h->src_mode & 0x3) << FCF_SRC_MODE_SHIFT);
    /* The auxiliary security header needs the 2006 frame version. */
    fcf |= (guint16)((secured ? FCF_VERSION_2006 : FCF_VERSION_2003) << FCF_VERSION_SHIFT);

    f = g_byte_array_sized_new(WPAN_FRAME_MAX);
    put_le(f, fcf, 2);
    g_byte_array_append(f, &h->seq, 1);
    if (h->dst_mode != WPAN_ADDR_NONE) {
        put_le(f, h->pan_id, 2);
        put_addr(f, h->dst_mode, h->dst_short, h->dst_ext);
    }
    if (h->src_mode != WPAN_ADDR_NONE) {
        /* Without a destination the PAN ID goes with the source. */
        if (!panid_compressed(h))
            put_le(f, h->pan_id, 2);
        put_addr(f, h->src_mode, h->src_short, h->src_ext);
    }
    if (secured) {
        guint8 sc = SEC_CONTROL;

        g_byte_array_append(f, &sc, 1);
        put_le(f, h->frame_counter, 4);
        g_byte_array_append(f, &h->key_index, 1);
    }
    g_assert(f->len == mhr_len(h, secured));

    a_len = f->len;
    if (len > 0)
        g_byte_array_append(f, payload, (guint)len);
    /* In 802.15.4-2006 the command identifier stays in clear and is
     * authenticated with the header (7.6.3.5.1, Table 96). */
    if (h->frame_type == WPAN_FT_CMD)
        a_len += 1;

    if (secured && !ccm_star_secure(f, a_len, mac_key, nonce_src_ext, h->frame_counter)) {
        g_byte_array_unref(f);
        return NULL;
    }
    append_fcs(f);
    g_assert(f->len <= WPAN_FRAME_MAX);
    return f;
}

GByteArray *wpan_ack_build(guint8 seq, gboolean frame_pending)
{
    GByteArray *f = g_byte_array_sized_new(5);
    guint16 fcf = WPAN_FT_ACK | (frame_pending ? FCF_FRAME_PENDING : 0);

    put_le(f, fcf, 2);
    g_byte_array_append(f, &seq, 1);
    append_fcs(f);
    return f;
}
