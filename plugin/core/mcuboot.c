/* mcuboot.c: MCUboot image parsing and checks (see mcuboot.h): header,
 * protected and unprotected TLV areas, SHA-256 recomputation and Ed25519
 * (RFC 8032) verification with libgcrypt. No proto_tree; bounded.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "mcuboot.h"

#include <stdio.h>
#include <string.h>

#include <gcrypt.h>

static guint16 rd16(const guint8 *p)
{
    return (guint16)(p[0] | (p[1] << 8));
}

static guint32 rd32(const guint8 *p)
{
    return (guint32)p[0] | ((guint32)p[1] << 8) | ((guint32)p[2] << 16) | ((guint32)p[3] << 24);
}

gboolean mcuboot_hdr_read(const guint8 *buf, gsize len, mcuboot_hdr_t *h)
{
    if (buf == NULL || len < MCUBOOT_HEADER_LEN)
        return FALSE;
    h->magic = rd32(buf + 0);
    h->load_addr = rd32(buf + 4);
    h->hdr_size = rd16(buf + 8);
    h->protect_tlv_size = rd16(buf + 10);
    h->img_size = rd32(buf + 12);
    h->flags = rd32(buf + 16);
    h->major = buf[20];
    h->minor = buf[21];
    h->revision = rd16(buf + 22);
    h->build = rd32(buf + 24);
    h->pad = rd32(buf + 28);
    return TRUE;
}

gboolean mcuboot_hdr_read_tvb(tvbuff_t *tvb, gint offset, mcuboot_hdr_t *h)
{
    guint8 b[MCUBOOT_HEADER_LEN];

    if (offset < 0 || tvb_captured_length_remaining(tvb, offset) < (gint)MCUBOOT_HEADER_LEN)
        return FALSE;
    tvb_memcpy(tvb, b, offset, sizeof b);
    return mcuboot_hdr_read(b, sizeof b, h);
}

guint32 mcuboot_hdr_problems(const mcuboot_hdr_t *h)
{
    guint32 p = 0;

    if (h->magic != MCUBOOT_MAGIC)
        p |= MCUBOOT_P_BAD_MAGIC;
    if (h->hdr_size < MCUBOOT_HEADER_LEN)
        p |= MCUBOOT_P_HDR_SIZE;
    return p;
}

void mcuboot_version_str(const mcuboot_hdr_t *h, char *buf, gsize size)
{
    snprintf(buf, size, "%u.%u.%u+%u", h->major, h->minor, h->revision, h->build);
}

/* Records the TLVs of one area, [start, end) of the image. */
static void walk_tlvs(const guint8 *img, guint64 start, guint64 end, gboolean prot,
                      mcuboot_image_info_t *info)
{
    guint64 p = start;

    while (p < end) {
        mcuboot_tlv_t *t;

        if (p + 4 > end) {
            info->problems |= MCUBOOT_P_TLV_PAST_END;
            return;
        }
        if (info->n_tlvs >= MCUBOOT_MAX_TLVS) {
            info->problems |= MCUBOOT_P_TOO_MANY_TLVS;
            return;
        }
        t = &info->tlvs[info->n_tlvs++];
        t->offset = (guint32)p;
        t->type = rd16(img + p);
        t->len = rd16(img + p + 2);
        t->protected_area = prot;
        t->past_end = p + 4 + t->len > end;
        if (t->past_end) {
            info->problems |= MCUBOOT_P_TLV_PAST_END;
            return;
        }
        p += 4 + (guint64)t->len;
    }
}

/* Reads the TLV info at off and walks its TLVs. Returns the declared end of
 * the area (off + tlv_tot), or 0 when no info could be read. */
static guint64 read_area(const guint8 *img, guint64 len, guint64 off, guint16 want_magic,
                         gboolean prot, mcuboot_tlv_area_t *a, mcuboot_image_info_t *info)
{
    guint64 end, walk_end;

    if (off + MCUBOOT_TLV_INFO_LEN > len) {
        info->problems |= MCUBOOT_P_TLV_INFO;
        return 0;
    }
    a->present = TRUE;
    a->offset = (guint32)off;
    a->magic = rd16(img + off);
    a->tlv_tot = rd16(img + off + 2);
    if (a->magic != want_magic) {
        info->problems |= MCUBOOT_P_TLV_INFO;
        return 0;
    }
    if (a->tlv_tot < MCUBOOT_TLV_INFO_LEN) {
        info->problems |= MCUBOOT_P_TLV_TOT;
        return 0;
    }
    end = off + a->tlv_tot;
    walk_end = end;
    if (walk_end > len) {
        info->problems |= MCUBOOT_P_TLV_TOT;
        walk_end = len;
    }
    walk_tlvs(img, off + MCUBOOT_TLV_INFO_LEN, walk_end, prot, info);
    return end;
}

void mcuboot_parse(const guint8 *img, gsize len, mcuboot_image_info_t *info)
{
    const mcuboot_hdr_t *h = &info->hdr;
    guint64 l = len, off, end;

    memset(info, 0, sizeof *info);
    info->image_len = len > G_MAXUINT32 ? G_MAXUINT32 : (guint32)len;
    if (len > G_MAXUINT32)
        l = G_MAXUINT32;
    if (!mcuboot_hdr_read(img, len, &info->hdr)) {
        info->problems |= MCUBOOT_P_HDR_SIZE;
        return;
    }
    info->hdr_ok = TRUE;
    info->problems |= mcuboot_hdr_problems(h);
    info->tlv_start = (guint64)h->hdr_size + h->img_size;
    info->hashed_len = info->tlv_start + h->protect_tlv_size;
    if (info->problems & MCUBOOT_P_BAD_MAGIC)
        return;                       /* not an MCUboot image: no TLVs to look for */
    if (h->hdr_size > l) {
        info->problems |= MCUBOOT_P_HDR_SIZE;
        return;
    }
    if (info->tlv_start > l) {
        info->problems |= MCUBOOT_P_IMG_SIZE;
        return;
    }
    off = info->tlv_start;
    if (h->protect_tlv_size != 0) {
        end = read_area(img, l, off, MCUBOOT_TLV_PROT_INFO, TRUE, &info->prot, info);
        if (end != 0 && end != off + h->protect_tlv_size)
            info->problems |= MCUBOOT_P_TLV_TOT;
        off += h->protect_tlv_size;   /* the header says where the hashed part ends */
    }
    end = read_area(img, l, off, MCUBOOT_TLV_INFO, FALSE, &info->unprot, info);
    info->end = end;
    if (end != 0 && end < l)
        info->problems |= MCUBOOT_P_TRAILING;
}

const guint8 *mcuboot_tlv_value(const guint8 *img, const mcuboot_image_info_t *info, guint i)
{
    if (i >= info->n_tlvs || info->tlvs[i].past_end)
        return NULL;
    return img + info->tlvs[i].offset + 4;
}

gint mcuboot_find_tlv(const mcuboot_image_info_t *info, guint16 type, guint16 len)
{
    for (guint i = 0; i < info->n_tlvs; i++)
        if (info->tlvs[i].type == type && info->tlvs[i].len == len && !info->tlvs[i].past_end)
            return (gint)i;
    return -1;
}

void mcuboot_sha256(const guint8 *buf, gsize len, guint8 out[32])
{
    gcry_md_hash_buffer(GCRY_MD_SHA256, out, buf, len);
}

/* libgcrypt 1.10.1 aborts the process ("mulm_25519: different sizes") on
 * an Ed25519 public key whose 32-byte little-endian value is below 2^192
 * (bytes 24..31 all zero: the all-zero key, y = 1, small y): such a key is
 * never passed to it. No valid key is refused in practice (2^-64). */
gboolean mcuboot_ed25519_key_usable(const guint8 pubkey[32])
{
    for (guint i = 24; i < 32; i++)
        if (pubkey[i] != 0)
            return TRUE;
    return FALSE;
}

mcuboot_check_t mcuboot_ed25519_verify(const guint8 pubkey[32], const guint8 *msg,
                                       gsize msg_len, const guint8 sig[64])
{
    gcry_sexp_t key = NULL, data = NULL, s = NULL;
    mcuboot_check_t r = MCUBOOT_CHECK_NOT_CHECKED;

    if (!mcuboot_ed25519_key_usable(pubkey))
        return MCUBOOT_CHECK_NOT_CHECKED;

    if (gcry_sexp_build(&key, NULL, "(public-key (ecc (curve Ed25519) (flags eddsa) (q %b)))",
                        32, pubkey) == 0 &&
        gcry_sexp_build(&data, NULL, "(data (flags eddsa) (hash-algo sha512) (value %b))",
                        (int)msg_len, msg) == 0 &&
        gcry_sexp_build(&s, NULL, "(sig-val (eddsa (r %b) (s %b)))", 32, sig, 32, sig + 32) == 0) {
        /* Any refusal (bad signature, R not on the curve, S out of range,
         * a key that is no curve point) means it does not verify. */
        r = gcry_pk_verify(s, data, key) == 0 ? MCUBOOT_CHECK_GOOD : MCUBOOT_CHECK_BAD;
    }
    gcry_sexp_release(s);
    gcry_sexp_release(data);
    gcry_sexp_release(key);
    return r;
}

void mcuboot_verify(const guint8 *img, const mcuboot_image_info_t *info,
                    const guint8 *pubkey, mcuboot_verify_t *v)
{
    memset(v, 0, sizeof *v);
    v->sha256_tlv = mcuboot_find_tlv(info, MCUBOOT_TLV_SHA256, 32);
    v->sig_tlv = mcuboot_find_tlv(info, MCUBOOT_TLV_ED25519, 64);

    if (info->hdr_ok && !(info->problems & MCUBOOT_P_BAD_MAGIC) &&
        info->hashed_len <= info->image_len) {
        mcuboot_sha256(img, (gsize)info->hashed_len, v->sha256_computed);
        v->computed = TRUE;
    }
    if (v->sha256_tlv < 0)
        v->sha256 = MCUBOOT_CHECK_ABSENT;
    else if (!v->computed)
        v->sha256 = MCUBOOT_CHECK_NOT_CHECKED;
    else
        v->sha256 = memcmp(v->sha256_computed, mcuboot_tlv_value(img, info, (guint)v->sha256_tlv),
                           32) == 0 ? MCUBOOT_CHECK_GOOD : MCUBOOT_CHECK_BAD;

    if (v->sig_tlv < 0) {
        v->signature = MCUBOOT_CHECK_ABSENT;
        for (guint i = 0; i < info->n_tlvs; i++) {
            guint16 t = info->tlvs[i].type;
            if (t == MCUBOOT_TLV_RSA2048_PSS || t == MCUBOOT_TLV_ECDSA224 ||
                t == MCUBOOT_TLV_ECDSA_SIG || t == MCUBOOT_TLV_RSA3072_PSS)
                v->signature = MCUBOOT_CHECK_UNSUPPORTED;
        }
        /* An Ed25519 TLV of the wrong length or cut short cannot verify. */
        for (guint i = 0; i < info->n_tlvs; i++)
            if (info->tlvs[i].type == MCUBOOT_TLV_ED25519)
                v->signature = pubkey ? MCUBOOT_CHECK_BAD : MCUBOOT_CHECK_NOT_CHECKED;
    } else if (pubkey == NULL || !v->computed) {
        v->signature = MCUBOOT_CHECK_NOT_CHECKED;
    } else {
        /* MCUboot verifies the signature over the digest it computed. */
        v->signature = mcuboot_ed25519_verify(pubkey, v->sha256_computed, 32,
                                              mcuboot_tlv_value(img, info, (guint)v->sig_tlv));
    }
}

gboolean mcuboot_parse_pubkey_hex(const char *s, guint8 out[32])
{
    guint n = 0;
    int hi = -1;

    if (s == NULL)
        return FALSE;
    for (; *s; s++) {
        int d;

        if (*s == ' ' || *s == ':' || *s == '\t')
            continue;
        d = g_ascii_xdigit_value(*s);
        if (d < 0 || n >= 32)
            return FALSE;
        if (hi < 0) {
            hi = d;
        } else {
            out[n++] = (guint8)(hi << 4 | d);
            hi = -1;
        }
    }
    return n == 32 && hi < 0 && mcuboot_ed25519_key_usable(out);
}
