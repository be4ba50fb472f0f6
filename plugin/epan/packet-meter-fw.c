/* packet-meter-fw.c: the meter's firmware download, GET /firmware/<name>
 * with CoAP Block2 (RFC 7959), one MCUboot image (shared/meter-protocol.md).
 *
 * Block 0 shows the MCUboot header at once. The image is put back together
 * per transfer (the hook's transfer_id) in a block map by byte offset,
 * num * 2^(SZX+4) (core/block_map.c, which says why not epan's reassembly),
 * so a block-size change mid-transfer, retransmitted responses and MAC-retry
 * copies are harmless. On the frame that completes it (the M=0 block and
 * every byte before it present) the TLV area is decoded, SHA-256 recomputed
 * and compared with the SHA-256 TLV and with the meter's config blob, and
 * the Ed25519 signature checked with the public key in the preferences.
 * Every image is offered to Export Objects ("meter-fw"), an unfinished
 * download too, as "<name>.partial" with its bytes contiguous from 0.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <string.h>

#include <epan/packet.h>
#include <epan/expert.h>
#include <epan/proto_data.h>
#include <epan/tap.h>
#include <epan/to_str.h>
#include <epan/address.h>

#include "packet-meter-fw.h"
#include "meter-session.h"
#include "meter-prefs.h"
#include "packet-meter-fw-export.h"
#include "block_map.h"
#include "mcuboot.h"

/* packet-meter-cfg.c tells which firmware the meter's config announced. */
#include "meter-cfg-firmware.h"

/* An image bigger than this is not reassembled (bounds memory on garbage). */
#define FW_MAX_IMAGE BLOCK_MAP_MAX_SIZE


static int fw_eo_tap = -1;              /* Export Objects (packet-meter-fw-export.c) */

static int hf_meter_fw = -1;
static int hf_meter_fw_block_num = -1;
static int hf_meter_fw_block_offset = -1;
static int hf_meter_fw_block_size = -1;
static int hf_meter_fw_block_len = -1;
static int hf_meter_fw_block_duplicate = -1;
static int hf_meter_fw_error_payload = -1;
static int hf_meter_fw_header = -1;
static int hf_meter_fw_magic = -1;
static int hf_meter_fw_load_addr = -1;
static int hf_meter_fw_hdr_size = -1;
static int hf_meter_fw_protect_tlv_size = -1;
static int hf_meter_fw_img_size = -1;
static int hf_meter_fw_flags = -1;
static int hf_meter_fw_flags_pic = -1;
static int hf_meter_fw_flags_encrypted_aes128 = -1;
static int hf_meter_fw_flags_encrypted_aes256 = -1;
static int hf_meter_fw_flags_non_bootable = -1;
static int hf_meter_fw_flags_ram_load = -1;
static int hf_meter_fw_flags_rom_fixed = -1;
static int hf_meter_fw_version = -1;
static int hf_meter_fw_version_major = -1;
static int hf_meter_fw_version_minor = -1;
static int hf_meter_fw_version_revision = -1;
static int hf_meter_fw_version_build = -1;
static int hf_meter_fw_pad = -1;
static int hf_meter_fw_body = -1;
static int hf_meter_fw_tlv_info_magic = -1;
static int hf_meter_fw_tlv_info_tlv_tot = -1;
static int hf_meter_fw_tlv = -1;
static int hf_meter_fw_tlv_type = -1;
static int hf_meter_fw_tlv_len = -1;
static int hf_meter_fw_tlv_value = -1;
static int hf_meter_fw_trailing = -1;
static int hf_meter_fw_image_size = -1;
static int hf_meter_fw_sha256_computed = -1;
static int hf_meter_fw_sha256_status = -1;
static int hf_meter_fw_sha256_config = -1;
static int hf_meter_fw_sha256_config_status = -1;
static int hf_meter_fw_config_in = -1;
static int hf_meter_fw_signature_status = -1;
static int hf_meter_fw_reassembled_in = -1;
static int hf_meter_fw_contiguous = -1;

static gint ett_meter_fw = -1;
static gint ett_meter_fw_hdr = -1;
static gint ett_meter_fw_flags = -1;
static gint ett_meter_fw_version = -1;
static gint ett_meter_fw_image = -1;
static gint ett_meter_fw_tlv_area = -1;
static gint ett_meter_fw_tlv = -1;

static expert_field ei_meter_fw_bad_magic = EI_INIT;
static expert_field ei_meter_fw_hdr_size_bad = EI_INIT;
static expert_field ei_meter_fw_img_size_bad = EI_INIT;
static expert_field ei_meter_fw_tlv_info_bad = EI_INIT;
static expert_field ei_meter_fw_tlv_tot_bad = EI_INIT;
static expert_field ei_meter_fw_tlv_past_end = EI_INIT;
static expert_field ei_meter_fw_tlv_too_many = EI_INIT;
static expert_field ei_meter_fw_trailing_bytes = EI_INIT;
static expert_field ei_meter_fw_sha256_bad = EI_INIT;
static expert_field ei_meter_fw_sha256_good = EI_INIT;
static expert_field ei_meter_fw_sha256_config_mismatch = EI_INIT;
static expert_field ei_meter_fw_signature_bad = EI_INIT;
static expert_field ei_meter_fw_signature_good = EI_INIT;
static expert_field ei_meter_fw_incomplete = EI_INIT;
static expert_field ei_meter_fw_error_response_payload = EI_INIT;
static expert_field ei_meter_fw_block_conflict = EI_INIT;
static expert_field ei_meter_fw_too_large = EI_INIT;

/* ---- value strings ---------------------------------------------------- */

static const value_string tlv_info_magic_vals[] = {
    { MCUBOOT_TLV_INFO, "TLV info" },
    { MCUBOOT_TLV_PROT_INFO, "Protected TLV info" },
    { 0, NULL },
};

static const value_string tlv_type_vals[] = {
    { MCUBOOT_TLV_KEYHASH, "Key hash (SHA-256)" },
    { MCUBOOT_TLV_PUBKEY, "Public key" },
    { MCUBOOT_TLV_SHA256, "SHA-256" },
    { MCUBOOT_TLV_SHA384, "SHA-384" },
    { MCUBOOT_TLV_RSA2048_PSS, "RSA-2048 PSS signature" },
    { MCUBOOT_TLV_ECDSA224, "ECDSA P-224 signature" },
    { MCUBOOT_TLV_ECDSA_SIG, "ECDSA P-256 signature" },
    { MCUBOOT_TLV_RSA3072_PSS, "RSA-3072 PSS signature" },
    { MCUBOOT_TLV_ED25519, "Ed25519 signature" },
    { MCUBOOT_TLV_ENC_RSA2048, "Encryption key, RSA-OAEP" },
    { MCUBOOT_TLV_ENC_KW, "Encryption key, AES key wrap" },
    { MCUBOOT_TLV_ENC_EC256, "Encryption key, ECIES P-256" },
    { MCUBOOT_TLV_ENC_X25519, "Encryption key, ECIES X25519" },
    { MCUBOOT_TLV_DEPENDENCY, "Dependency" },
    { MCUBOOT_TLV_SEC_CNT, "Security counter" },
    { MCUBOOT_TLV_BOOT_RECORD, "Boot record" },
    { 0, NULL },
};

enum { CHK_ABSENT = 0, CHK_GOOD, CHK_BAD, CHK_NOT_CHECKED };

static const value_string sha256_status_vals[] = {
    { CHK_ABSENT, "No SHA-256 TLV" },
    { CHK_GOOD, "Good" },
    { CHK_BAD, "Bad" },
    { CHK_NOT_CHECKED, "Not checked: the hashed range runs past the image" },
    { 0, NULL },
};

enum { SIG_ABSENT = 0, SIG_GOOD, SIG_BAD, SIG_NO_KEY, SIG_UNSUPPORTED, SIG_NO_HASH, SIG_BAD_KEY };

static const value_string signature_status_vals[] = {
    { SIG_ABSENT, "No signature TLV" },
    { SIG_GOOD, "Good" },
    { SIG_BAD, "Bad" },
    { SIG_NO_KEY, "Not checked: no public key (preference meter.fw.pubkey)" },
    { SIG_UNSUPPORTED, "Not checked: signature type not supported (only Ed25519)" },
    { SIG_NO_HASH, "Not checked: the image hash cannot be computed" },
    { SIG_BAD_KEY, "Not checked: meter.fw.pubkey is not a usable key (64 hex digits)" },
    { 0, NULL },
};

enum { CFG_NONE = 0, CFG_MATCHES, CFG_DIFFERS, CFG_OTHER_PATH };

static const value_string config_status_vals[] = {
    { CFG_NONE, "No config" },
    { CFG_MATCHES, "Matches the config" },
    { CFG_DIFFERS, "Differs from the config" },
    { CFG_OTHER_PATH, "Not compared: the config announces another image path" },
    { 0, NULL },
};

/* ---- first-pass state ------------------------------------------------- */

typedef struct {
    guint64 key;              /* transfer_id, or 1 << 32 | frame without one */
    address meter, gateway;   /* wmem file scope */
    char *path;               /* wmem file scope; NULL if unknown */
    block_map_t *map;         /* the image's bytes; freed at cleanup */
    guint32 hdr_frame;        /* the first 32 bytes became contiguous here */
    guint32 last_frame;       /* last block frame seen */
    guint32 complete_frame;   /* 0 until complete */
    /* results, on completion */
    const guint8 *buf;        /* the image: the block map's bytes */
    guint32 total;            /* its length, from the M=0 block */
    mcuboot_image_info_t *info;
    mcuboot_verify_t ver;
    guint8 sig_status;
    guint8 config_status;
    gboolean config_sha_known;
    guint8 config_sha[32];
    guint32 config_frame;
    gboolean verified;        /* the hash, and the signature when a key is set, are good */
} fw_xfer_t;

/* What one call saw, kept for later passes. */
typedef struct {
    fw_xfer_t *xfer;          /* NULL: not part of an image (error response) */
    gboolean is_error;        /* 4.xx/5.xx response carrying bytes */
    guint32 offset, len, block_size;
    gboolean duplicate;       /* every byte was already there */
    gboolean conflict;        /* some byte differed from an earlier copy */
    gboolean too_large;
} fw_frame_t;

static void xfer_free(gpointer p)
{
    fw_xfer_t *x = (fw_xfer_t *)p;

    block_map_free(x->map);
    g_free(x->info);
    g_free(x);
}

/* The session's slot: guint64 key -> fw_xfer_t. */
static void *xfers_new(void)
{
    return g_hash_table_new_full(g_int64_hash, g_int64_equal, NULL, xfer_free);
}

static void xfers_free(void *xfers)
{
    g_hash_table_destroy((GHashTable *)xfers);
}

static GHashTable *session_xfers(meter_session_t *session)
{
    return (GHashTable *)meter_session_part(session, METER_PART_FW);
}

static fw_xfer_t *xfer_get(guint64 key, const meter_ctx_t *ctx)
{
    GHashTable *fw_xfers = session_xfers(ctx->session);
    fw_xfer_t *x = (fw_xfer_t *)g_hash_table_lookup(fw_xfers, &key);

    if (x)
        return x;
    x = g_new0(fw_xfer_t, 1);
    x->key = key;
    if (ctx->meter)
        copy_address_wmem(wmem_file_scope(), &x->meter, ctx->meter);
    if (ctx->gateway)
        copy_address_wmem(wmem_file_scope(), &x->gateway, ctx->gateway);
    x->path = ctx->msg->path ? wmem_strdup(wmem_file_scope(), ctx->msg->path) : NULL;
    x->map = block_map_new(FW_MAX_IMAGE);
    g_hash_table_insert(fw_xfers, &x->key, x);
    return x;
}

/* Paths as the config sends them may carry a leading '/'. */
static gboolean same_path(const char *a, const char *b)
{
    while (*a == '/')
        a++;
    while (*b == '/')
        b++;
    return strcmp(a, b) == 0;
}

/* The checks, once, on the frame that completes the image. */
static void xfer_complete(fw_xfer_t *x, packet_info *pinfo, meter_session_t *session)
{
    guint8 key[32];
    gboolean have_key;

    x->complete_frame = pinfo->num;
    x->info = g_new0(mcuboot_image_info_t, 1);
    mcuboot_parse(x->buf, x->total, x->info);

    have_key = meter_prefs.fw_pubkey && *meter_prefs.fw_pubkey && mcuboot_parse_pubkey_hex(meter_prefs.fw_pubkey, key);
    mcuboot_verify(x->buf, x->info, have_key ? key : NULL, &x->ver);
    /* "Image verified" in the OTA statistics: the SHA-256 matches its TLV,
     * and the signature verifies when a key is configured. */
    x->verified = x->ver.sha256 == MCUBOOT_CHECK_GOOD && (!have_key || x->ver.signature == MCUBOOT_CHECK_GOOD);
    switch (x->ver.signature) {
    case MCUBOOT_CHECK_GOOD:
        x->sig_status = SIG_GOOD;
        break;
    case MCUBOOT_CHECK_BAD:
        x->sig_status = SIG_BAD;
        break;
    case MCUBOOT_CHECK_UNSUPPORTED:
        x->sig_status = SIG_UNSUPPORTED;
        break;
    case MCUBOOT_CHECK_NOT_CHECKED:
        if (!x->ver.computed)
            x->sig_status = SIG_NO_HASH;
        else if (meter_prefs.fw_pubkey && *meter_prefs.fw_pubkey && !have_key)
            x->sig_status = SIG_BAD_KEY;
        else
            x->sig_status = SIG_NO_KEY;
        break;
    default:
        x->sig_status = SIG_ABSENT;
        break;
    }

    x->config_status = CFG_NONE;
    if (x->meter.type != AT_NONE && x->ver.computed) {
        const meter_cfg_firmware_t *cf = meter_cfg_firmware_for(session, &x->meter, pinfo->num);
        if (cf && cf->has_sha256) {
            x->config_frame = cf->frame;
            if (cf->path && x->path && !same_path(cf->path, x->path)) {
                x->config_status = CFG_OTHER_PATH;
            } else {
                x->config_sha_known = TRUE;
                memcpy(x->config_sha, cf->sha256, 32);
                x->config_status = memcmp(cf->sha256, x->ver.sha256_computed, 32) == 0
                                       ? CFG_MATCHES : CFG_DIFFERS;
            }
        }
    }
}

gboolean meter_fw_transfer_verified(meter_session_t *session, guint32 transfer_id)
{
    guint64 key = transfer_id;
    const fw_xfer_t *x = transfer_id ? (const fw_xfer_t *)g_hash_table_lookup(session_xfers(session), &key) : NULL;

    return x && x->verified;
}

/* ---- display ---------------------------------------------------------- */

static void add_header(proto_tree *tree, packet_info *pinfo, tvbuff_t *tvb, gint off,
                       guint32 image_len)
{
    static int * const flag_fields[] = {
        &hf_meter_fw_flags_pic, &hf_meter_fw_flags_encrypted_aes128, &hf_meter_fw_flags_encrypted_aes256,
        &hf_meter_fw_flags_non_bootable, &hf_meter_fw_flags_ram_load, &hf_meter_fw_flags_rom_fixed, NULL
    };
    mcuboot_hdr_t h;
    proto_tree *ht, *vt;
    proto_item *hi, *pi;
    char ver[48];

    if (!mcuboot_hdr_read_tvb(tvb, off, &h))
        return;
    mcuboot_version_str(&h, ver, sizeof ver);
    hi = proto_tree_add_item(tree, hf_meter_fw_header, tvb, off, MCUBOOT_HEADER_LEN, ENC_NA);
    ht = proto_item_add_subtree(hi, ett_meter_fw_hdr);
    proto_item_append_text(hi, ": version %s, image %u bytes", ver, h.img_size);

    pi = proto_tree_add_item(ht, hf_meter_fw_magic, tvb, off, 4, ENC_LITTLE_ENDIAN);
    if (h.magic != MCUBOOT_MAGIC)
        expert_add_info_format(pinfo, pi, &ei_meter_fw_bad_magic,
                               "Bad MCUboot magic 0x%08x (expected 0x%08x)", h.magic, MCUBOOT_MAGIC);
    proto_tree_add_item(ht, hf_meter_fw_load_addr, tvb, off + 4, 4, ENC_LITTLE_ENDIAN);
    pi = proto_tree_add_item(ht, hf_meter_fw_hdr_size, tvb, off + 8, 2, ENC_LITTLE_ENDIAN);
    if (h.hdr_size < MCUBOOT_HEADER_LEN)
        expert_add_info_format(pinfo, pi, &ei_meter_fw_hdr_size_bad,
                               "hdr_size %u is smaller than the %u-byte header",
                               h.hdr_size, MCUBOOT_HEADER_LEN);
    else if (image_len && h.hdr_size > image_len)
        expert_add_info_format(pinfo, pi, &ei_meter_fw_hdr_size_bad,
                               "hdr_size %u is beyond the %u-byte image", h.hdr_size, image_len);
    proto_tree_add_item(ht, hf_meter_fw_protect_tlv_size, tvb, off + 10, 2, ENC_LITTLE_ENDIAN);
    pi = proto_tree_add_item(ht, hf_meter_fw_img_size, tvb, off + 12, 4, ENC_LITTLE_ENDIAN);
    if (image_len && h.hdr_size <= image_len && (guint64)h.hdr_size + h.img_size > image_len)
        expert_add_info_format(pinfo, pi, &ei_meter_fw_img_size_bad,
                               "img_size %u runs past the %u-byte image", h.img_size, image_len);
    proto_tree_add_bitmask(ht, tvb, off + 16, hf_meter_fw_flags, ett_meter_fw_flags, flag_fields,
                           ENC_LITTLE_ENDIAN);
    pi = proto_tree_add_string(ht, hf_meter_fw_version, tvb, off + 20, 8, ver);
    vt = proto_item_add_subtree(pi, ett_meter_fw_version);
    proto_tree_add_item(vt, hf_meter_fw_version_major, tvb, off + 20, 1, ENC_NA);
    proto_tree_add_item(vt, hf_meter_fw_version_minor, tvb, off + 21, 1, ENC_NA);
    proto_tree_add_item(vt, hf_meter_fw_version_revision, tvb, off + 22, 2, ENC_LITTLE_ENDIAN);
    proto_tree_add_item(vt, hf_meter_fw_version_build, tvb, off + 24, 4, ENC_LITTLE_ENDIAN);
    proto_tree_add_item(ht, hf_meter_fw_pad, tvb, off + 28, 4, ENC_LITTLE_ENDIAN);
}

static void add_tlv_area(proto_tree *tree, packet_info *pinfo, tvbuff_t *tvb,
                         const mcuboot_image_info_t *info, const mcuboot_tlv_area_t *a,
                         gboolean prot)
{
    guint32 len = info->image_len;
    gint area_len = (gint)MIN((guint32)a->tlv_tot, len - a->offset);
    proto_tree *at, *tt;
    proto_item *ai, *pi;

    if (area_len < (gint)MCUBOOT_TLV_INFO_LEN)
        area_len = MCUBOOT_TLV_INFO_LEN;
    at = proto_tree_add_subtree_format(tree, tvb, a->offset, area_len, ett_meter_fw_tlv_area, &ai,
                                       "%s TLV area", prot ? "Protected" : "Unprotected");
    pi = proto_tree_add_item(at, hf_meter_fw_tlv_info_magic, tvb, a->offset, 2, ENC_LITTLE_ENDIAN);
    if (a->magic != (prot ? MCUBOOT_TLV_PROT_INFO : MCUBOOT_TLV_INFO))
        expert_add_info_format(pinfo, pi, &ei_meter_fw_tlv_info_bad,
                               "TLV info magic 0x%04x, expected 0x%04x", a->magic,
                               prot ? MCUBOOT_TLV_PROT_INFO : MCUBOOT_TLV_INFO);
    pi = proto_tree_add_item(at, hf_meter_fw_tlv_info_tlv_tot, tvb, a->offset + 2, 2, ENC_LITTLE_ENDIAN);
    if (a->tlv_tot < MCUBOOT_TLV_INFO_LEN)
        expert_add_info_format(pinfo, pi, &ei_meter_fw_tlv_tot_bad,
                               "tlv_tot %u is smaller than the 4-byte TLV info", a->tlv_tot);
    else if ((guint64)a->offset + a->tlv_tot > len)
        expert_add_info_format(pinfo, pi, &ei_meter_fw_tlv_tot_bad,
                               "tlv_tot %u runs %u bytes past the image", a->tlv_tot,
                               (guint32)((guint64)a->offset + a->tlv_tot - len));
    else if (prot && a->tlv_tot != info->hdr.protect_tlv_size)
        expert_add_info_format(pinfo, pi, &ei_meter_fw_tlv_tot_bad,
                               "tlv_tot %u differs from the header's protect_tlv_size %u",
                               a->tlv_tot, info->hdr.protect_tlv_size);

    for (guint i = 0; i < info->n_tlvs; i++) {
        const mcuboot_tlv_t *t = &info->tlvs[i];
        gint vlen;

        if (t->protected_area != prot)
            continue;
        vlen = (gint)MIN((guint32)t->len, len - MIN(len, t->offset + 4));
        pi = proto_tree_add_none_format(at, hf_meter_fw_tlv, tvb, t->offset, 4 + vlen,
                                        "TLV: %s (0x%02x), %u bytes",
                                        val_to_str_const(t->type, tlv_type_vals, "Unknown"),
                                        t->type, t->len);
        tt = proto_item_add_subtree(pi, ett_meter_fw_tlv);
        proto_tree_add_item(tt, hf_meter_fw_tlv_type, tvb, t->offset, 2, ENC_LITTLE_ENDIAN);
        pi = proto_tree_add_item(tt, hf_meter_fw_tlv_len, tvb, t->offset + 2, 2, ENC_LITTLE_ENDIAN);
        if (t->past_end)
            expert_add_info_format(pinfo, pi, &ei_meter_fw_tlv_past_end,
                                   "TLV length %u runs past the end of its area", t->len);
        if (vlen > 0)
            proto_tree_add_item(tt, hf_meter_fw_tlv_value, tvb, t->offset + 4, vlen, ENC_NA);
    }
    /* A TLV header cut by the area's end, after the last listed TLV. */
    if ((info->problems & MCUBOOT_P_TLV_PAST_END) && info->n_tlvs > 0 &&
        !info->tlvs[info->n_tlvs - 1].past_end && !prot == !info->tlvs[info->n_tlvs - 1].protected_area)
        expert_add_info_format(pinfo, ai, &ei_meter_fw_tlv_past_end,
                               "A TLV header runs past the end of the area");
    if (!prot && (info->problems & MCUBOOT_P_TOO_MANY_TLVS))
        expert_add_info_format(pinfo, ai, &ei_meter_fw_tlv_too_many,
                               "More than %u TLVs: the rest are not shown", MCUBOOT_MAX_TLVS);
}

static void add_image(proto_tree *tree, packet_info *pinfo, tvbuff_t *img, const fw_xfer_t *x)
{
    const mcuboot_image_info_t *info = x->info;
    const mcuboot_verify_t *v = &x->ver;
    proto_tree *it;
    proto_item *ii, *pi;
    guint32 len = x->total;

    ii = proto_tree_add_uint(tree, hf_meter_fw_image_size, img, 0, len, len);
    proto_item_set_generated(ii);
    it = proto_item_add_subtree(ii, ett_meter_fw_image);
    proto_item_append_text(ii, " bytes (reassembled)");

    if (!info->hdr_ok) {
        expert_add_info_format(pinfo, ii, &ei_meter_fw_hdr_size_bad,
                               "The image (%u bytes) is shorter than an MCUboot header", len);
        return;
    }
    add_header(it, pinfo, img, 0, len);
    if (info->problems & MCUBOOT_P_BAD_MAGIC)
        return;
    if (info->hdr.hdr_size < len) {
        guint32 body_len = (guint32)MIN((guint64)info->hdr.img_size,
                                        (guint64)len - info->hdr.hdr_size);
        if (body_len > 0)
            proto_tree_add_item(it, hf_meter_fw_body, img, info->hdr.hdr_size, body_len, ENC_NA);
    }
    if (info->hdr.protect_tlv_size && info->prot.present)
        add_tlv_area(it, pinfo, img, info, &info->prot, TRUE);
    if (info->unprot.present)
        add_tlv_area(it, pinfo, img, info, &info->unprot, FALSE);
    else if (!(info->problems & (MCUBOOT_P_HDR_SIZE | MCUBOOT_P_IMG_SIZE)))
        expert_add_info_format(pinfo, ii, &ei_meter_fw_tlv_info_bad, "No TLV area after the body");
    if ((info->problems & MCUBOOT_P_TRAILING) && info->end < len) {
        pi = proto_tree_add_item(it, hf_meter_fw_trailing, img, (gint)info->end,
                                 (gint)(len - info->end), ENC_NA);
        expert_add_info(pinfo, pi, &ei_meter_fw_trailing_bytes);
    }

    if (v->computed) {
        pi = proto_tree_add_bytes_with_length(tree, hf_meter_fw_sha256_computed, img, 0,
                                              (gint)info->hashed_len, v->sha256_computed, 32);
        proto_item_set_generated(pi);
    }
    pi = proto_tree_add_uint(tree, hf_meter_fw_sha256_status, img, 0, 0,
                             v->sha256 == MCUBOOT_CHECK_GOOD ? CHK_GOOD :
                             v->sha256 == MCUBOOT_CHECK_BAD ? CHK_BAD :
                             v->sha256 == MCUBOOT_CHECK_ABSENT ? CHK_ABSENT : CHK_NOT_CHECKED);
    proto_item_set_generated(pi);
    if (v->sha256 == MCUBOOT_CHECK_GOOD)
        expert_add_info(pinfo, pi, &ei_meter_fw_sha256_good);
    else if (v->sha256 == MCUBOOT_CHECK_BAD)
        expert_add_info(pinfo, pi, &ei_meter_fw_sha256_bad);

    if (x->config_sha_known) {
        pi = proto_tree_add_bytes_with_length(tree, hf_meter_fw_sha256_config, img, 0, 0,
                                              x->config_sha, 32);
        proto_item_set_generated(pi);
    }
    pi = proto_tree_add_uint(tree, hf_meter_fw_sha256_config_status, img, 0, 0, x->config_status);
    proto_item_set_generated(pi);
    if (x->config_status == CFG_DIFFERS)
        expert_add_info(pinfo, pi, &ei_meter_fw_sha256_config_mismatch);
    if (x->config_frame) {
        pi = proto_tree_add_uint(tree, hf_meter_fw_config_in, img, 0, 0, x->config_frame);
        proto_item_set_generated(pi);
    }

    pi = proto_tree_add_uint(tree, hf_meter_fw_signature_status, img, 0, 0, x->sig_status);
    proto_item_set_generated(pi);
    if (x->sig_status == SIG_GOOD)
        expert_add_info(pinfo, pi, &ei_meter_fw_signature_good);
    else if (x->sig_status == SIG_BAD)
        expert_add_info(pinfo, pi, &ei_meter_fw_signature_bad);
}

static const char *sha_word(const fw_xfer_t *x)
{
    switch (x->ver.sha256) {
    case MCUBOOT_CHECK_GOOD: return "SHA-256 good";
    case MCUBOOT_CHECK_BAD: return "SHA-256 bad";
    case MCUBOOT_CHECK_ABSENT: return "no SHA-256";
    default: return "SHA-256 not checked";
    }
}

/* ---- the dissector ---------------------------------------------------- */

static fw_frame_t *first_pass(tvbuff_t *payload, packet_info *pinfo, const meter_ctx_t *ctx)
{
    const meter_coap_t *m = ctx->msg;
    fw_frame_t *fr = wmem_new0(wmem_file_scope(), fw_frame_t);
    guint32 len = tvb_captured_length(payload);
    guint64 off;
    gboolean more;
    fw_xfer_t *x;
    block_map_add_t r;

    if ((m->code >> 5) != 2) {
        fr->is_error = TRUE;
        fr->len = len;
        return fr;
    }
    if (m->block2.present) {
        fr->block_size = meter_block_size(m->block2.szx);
        off = (guint64)m->block2.num * fr->block_size;
        more = m->block2.more;
    } else {
        /* The whole image in one response. */
        fr->block_size = len;
        off = 0;
        more = FALSE;
    }
    fr->offset = (guint32)MIN(off, G_MAXUINT32);
    fr->len = len;
    x = xfer_get(ctx->transfer_id ? ctx->transfer_id : (G_GUINT64_CONSTANT(1) << 32 | pinfo->num),
                 ctx);
    fr->xfer = x;
    x->last_frame = pinfo->num;
    /* Bytes cut short by the capture join no image; once it is complete
     * they are still compared with it. */
    if (tvb_reported_length(payload) != len && !x->complete_frame) {
        fr->too_large = off + len > FW_MAX_IMAGE;
        return fr;
    }
    /* After completion the map only compares (a copy changes nothing). */
    block_map_add(x->map, off, len ? tvb_get_ptr(payload, 0, len) : NULL, len, !more, &r);
    fr->duplicate = r.duplicate;
    fr->conflict = r.conflict;
    fr->too_large = r.beyond_limit;
    if (!x->hdr_frame && block_map_contiguous(x->map) >= MCUBOOT_HEADER_LEN)
        x->hdr_frame = pinfo->num;
    if (r.completed) {
        x->buf = block_map_bytes(x->map);
        x->total = block_map_total(x->map);
        xfer_complete(x, pinfo, ctx->session);
    }
    return fr;
}

void dissect_meter_fw(tvbuff_t *payload, packet_info *pinfo, proto_tree *tree, const meter_ctx_t *ctx)
{
    const meter_coap_t *m = ctx->msg;
    guint *calls = (guint *)p_get_proto_data(pinfo->pool, pinfo, proto_meter, METER_PDATA_FW_COUNTER);
    guint idx;
    fw_frame_t *fr;
    fw_xfer_t *x;
    proto_tree *ft;
    proto_item *fi, *pi;
    mcuboot_hdr_t h;

    if (!calls) {
        calls = wmem_new0(pinfo->pool, guint);
        p_add_proto_data(pinfo->pool, pinfo, proto_meter, METER_PDATA_FW_COUNTER, calls);
    }
    idx = (*calls)++;
    if (idx >= 16)
        return;
    fr = (fw_frame_t *)p_get_proto_data(wmem_file_scope(), pinfo, proto_meter, METER_PDATA_FW_FRAME + idx);
    if (!fr) {
        if (PINFO_FD_VISITED(pinfo))
            return;
        fr = first_pass(payload, pinfo, ctx);
        p_add_proto_data(wmem_file_scope(), pinfo, proto_meter, METER_PDATA_FW_FRAME + idx, fr);
    }
    x = fr->xfer;

    fi = proto_tree_add_item(tree, hf_meter_fw, payload, 0, -1, ENC_NA);
    ft = proto_item_add_subtree(fi, ett_meter_fw);

    if (fr->is_error) {
        pi = proto_tree_add_item(ft, hf_meter_fw_error_payload, payload, 0, -1, ENC_NA);
        expert_add_info_format(pinfo, pi, &ei_meter_fw_error_response_payload,
                               "A %u.%02u error response carries %u bytes of firmware",
                               m->code >> 5, m->code & 0x1f, fr->len);
        col_append_fstr(pinfo->cinfo, COL_INFO, " [fw %u B in a %u.%02u response]",
                        fr->len, m->code >> 5, m->code & 0x1f);
        /* node-coap's answer to SZX 7 starts at offset 0: show what it is. */
        if (mcuboot_hdr_read_tvb(payload, 0, &h) && h.magic == MCUBOOT_MAGIC)
            add_header(ft, pinfo, payload, 0, 0);
        return;
    }

    proto_item_append_text(fi, ", bytes %u-%u", fr->offset, fr->offset + fr->len);
    if (m->block2.present) {
        pi = proto_tree_add_uint(ft, hf_meter_fw_block_num, payload, 0, 0, m->block2.num);
        proto_item_set_generated(pi);
    }
    pi = proto_tree_add_uint(ft, hf_meter_fw_block_offset, payload, 0, 0, fr->offset);
    proto_item_set_generated(pi);
    pi = proto_tree_add_uint(ft, hf_meter_fw_block_size, payload, 0, 0, fr->block_size);
    proto_item_set_generated(pi);
    pi = proto_tree_add_uint(ft, hf_meter_fw_block_len, payload, 0, 0, fr->len);
    proto_item_set_generated(pi);
    pi = proto_tree_add_boolean(ft, hf_meter_fw_block_duplicate, payload, 0, 0, fr->duplicate);
    proto_item_set_generated(pi);
    if (fr->conflict)
        expert_add_info(pinfo, pi, &ei_meter_fw_block_conflict);
    if (fr->too_large)
        expert_add_info_format(pinfo, fi, &ei_meter_fw_too_large,
                               "Block ends beyond %u bytes: not reassembled", FW_MAX_IMAGE);

    /* The header, as soon as its 32 bytes are there: in block 0, or
     * gathered from smaller blocks (SZX 0). */
    {
        tvbuff_t *htvb = NULL;

        if (fr->offset == 0 && fr->len >= MCUBOOT_HEADER_LEN) {
            htvb = payload;
        } else if (x && x->hdr_frame == pinfo->num) {
            guint8 *copy = (guint8 *)wmem_memdup(pinfo->pool, block_map_bytes(x->map), MCUBOOT_HEADER_LEN);
            htvb = tvb_new_child_real_data(payload, copy, MCUBOOT_HEADER_LEN, MCUBOOT_HEADER_LEN);
            add_new_data_source(pinfo, htvb, "MCUboot header (from blocks)");
        }
        if (htvb && mcuboot_hdr_read_tvb(htvb, 0, &h)) {
            char ver[48];

            add_header(ft, pinfo, htvb, 0, 0);
            mcuboot_version_str(&h, ver, sizeof ver);
            if (h.magic == MCUBOOT_MAGIC)
                col_append_fstr(pinfo->cinfo, COL_INFO, " [fw %s img %u B]", ver, h.img_size);
            else
                col_append_str(pinfo->cinfo, COL_INFO, " [fw bad magic]");
        }
    }

    if (!x)
        return;
    if (x->complete_frame == pinfo->num) {
        tvbuff_t *img = tvb_new_child_real_data(payload, x->buf, x->total, x->total);

        add_new_data_source(pinfo, img, "Firmware image (reassembled)");
        add_image(ft, pinfo, img, x);
        col_append_fstr(pinfo->cinfo, COL_INFO, " [fw complete, %s%s]", sha_word(x),
                        x->sig_status == SIG_GOOD ? ", signature good" :
                        x->sig_status == SIG_BAD ? ", signature bad" : "");
    } else if (x->complete_frame) {
        pi = proto_tree_add_uint(ft, hf_meter_fw_reassembled_in, payload, 0, 0, x->complete_frame);
        proto_item_set_generated(pi);
    } else if (PINFO_FD_VISITED(pinfo) && x->last_frame == pinfo->num) {
        /* Known only once the whole capture was read (-2, the GUI). */
        guint32 have = block_map_contiguous(x->map);
        gboolean end_known = block_map_end_known(x->map);

        pi = proto_tree_add_uint(ft, hf_meter_fw_contiguous, payload, 0, 0, have);
        proto_item_set_generated(pi);
        expert_add_info_format(pinfo, pi, &ei_meter_fw_incomplete,
                               "Firmware download partial: %u bytes contiguous from 0%s%s",
                               have, end_known ? " of " : ", end never seen",
                               end_known ? wmem_strdup_printf(pinfo->pool, "%u", block_map_total(x->map)) : "");
    }
    {
        meter_fw_image_view_t *v = wmem_new(pinfo->pool, meter_fw_image_view_t);
        gboolean complete = x->complete_frame != 0;

        v->key = x->key;
        v->meter = &x->meter;
        v->gateway = &x->gateway;
        v->path = x->path;
        v->complete = complete;
        v->have = complete ? x->total : block_map_contiguous(x->map);
        v->bytes = block_map_bytes(x->map);
        v->last_frame = complete ? x->complete_frame : pinfo->num;
        tap_queue_packet(fw_eo_tap, pinfo, v);
    }
}

/* ---- registration ------------------------------------------------------ */

void proto_register_meter_fw(void)
{
    static hf_register_info hf[] = {
        { &hf_meter_fw, { "Firmware", "meter.fw", FT_NONE, BASE_NONE, NULL, 0x0,
          "Firmware download payload (MCUboot image)", HFILL } },
        { &hf_meter_fw_block_num, { "Block number", "meter.fw.block.num", FT_UINT32, BASE_DEC, NULL, 0x0,
          "Block2 NUM of this response", HFILL } },
        { &hf_meter_fw_block_offset, { "Block offset", "meter.fw.block.offset", FT_UINT32, BASE_DEC, NULL, 0x0,
          "Byte offset of this block in the image: NUM * 2^(SZX+4)", HFILL } },
        { &hf_meter_fw_block_size, { "Block size", "meter.fw.block.size", FT_UINT32, BASE_DEC, NULL, 0x0,
          "2^(SZX+4) bytes", HFILL } },
        { &hf_meter_fw_block_len, { "Block payload length", "meter.fw.block.len", FT_UINT32, BASE_DEC, NULL, 0x0,
          "Image bytes in this response", HFILL } },
        { &hf_meter_fw_block_duplicate, { "Duplicate", "meter.fw.block.duplicate", FT_BOOLEAN, BASE_NONE, NULL, 0x0,
          "Every byte of this block had already been received (retransmission or MAC-retry copy)", HFILL } },
        { &hf_meter_fw_error_payload, { "Firmware bytes in an error response", "meter.fw.error_payload", FT_BYTES,
          BASE_NONE, NULL, 0x0, NULL, HFILL } },
        { &hf_meter_fw_header, { "MCUboot header", "meter.fw.header", FT_NONE, BASE_NONE, NULL, 0x0, NULL, HFILL } },
        { &hf_meter_fw_magic, { "Magic", "meter.fw.magic", FT_UINT32, BASE_HEX, NULL, 0x0,
          "MCUboot image magic, 0x96f3b83d", HFILL } },
        { &hf_meter_fw_load_addr, { "Load address", "meter.fw.load_addr", FT_UINT32, BASE_HEX, NULL, 0x0, NULL, HFILL } },
        { &hf_meter_fw_hdr_size, { "Header size", "meter.fw.hdr_size", FT_UINT16, BASE_DEC, NULL, 0x0,
          "Offset of the body", HFILL } },
        { &hf_meter_fw_protect_tlv_size, { "Protected TLV size", "meter.fw.protect_tlv_size", FT_UINT16, BASE_DEC,
          NULL, 0x0, NULL, HFILL } },
        { &hf_meter_fw_img_size, { "Image size", "meter.fw.img_size", FT_UINT32, BASE_DEC, NULL, 0x0,
          "Body length, without header and TLVs", HFILL } },
        { &hf_meter_fw_flags, { "Flags", "meter.fw.flags", FT_UINT32, BASE_HEX, NULL, 0x0, NULL, HFILL } },
        { &hf_meter_fw_flags_pic, { "Position independent", "meter.fw.flags.pic", FT_BOOLEAN, 32, NULL,
          MCUBOOT_F_PIC, NULL, HFILL } },
        { &hf_meter_fw_flags_encrypted_aes128, { "Encrypted, AES-128", "meter.fw.flags.encrypted_aes128", FT_BOOLEAN, 32, NULL,
          MCUBOOT_F_ENCRYPTED_AES128, NULL, HFILL } },
        { &hf_meter_fw_flags_encrypted_aes256, { "Encrypted, AES-256", "meter.fw.flags.encrypted_aes256", FT_BOOLEAN, 32, NULL,
          MCUBOOT_F_ENCRYPTED_AES256, NULL, HFILL } },
        { &hf_meter_fw_flags_non_bootable, { "Non-bootable", "meter.fw.flags.non_bootable", FT_BOOLEAN, 32, NULL,
          MCUBOOT_F_NON_BOOTABLE, NULL, HFILL } },
        { &hf_meter_fw_flags_ram_load, { "RAM load", "meter.fw.flags.ram_load", FT_BOOLEAN, 32, NULL,
          MCUBOOT_F_RAM_LOAD, NULL, HFILL } },
        { &hf_meter_fw_flags_rom_fixed, { "ROM fixed", "meter.fw.flags.rom_fixed", FT_BOOLEAN, 32, NULL,
          MCUBOOT_F_ROM_FIXED, NULL, HFILL } },
        { &hf_meter_fw_version, { "Version", "meter.fw.version", FT_STRING, BASE_NONE, NULL, 0x0,
          "major.minor.revision+build", HFILL } },
        { &hf_meter_fw_version_major, { "Major", "meter.fw.version.major", FT_UINT8, BASE_DEC, NULL, 0x0, NULL, HFILL } },
        { &hf_meter_fw_version_minor, { "Minor", "meter.fw.version.minor", FT_UINT8, BASE_DEC, NULL, 0x0, NULL, HFILL } },
        { &hf_meter_fw_version_revision, { "Revision", "meter.fw.version.revision", FT_UINT16, BASE_DEC, NULL, 0x0,
          NULL, HFILL } },
        { &hf_meter_fw_version_build, { "Build number", "meter.fw.version.build", FT_UINT32, BASE_DEC, NULL, 0x0,
          NULL, HFILL } },
        { &hf_meter_fw_pad, { "Pad", "meter.fw.pad", FT_UINT32, BASE_HEX, NULL, 0x0, NULL, HFILL } },
        { &hf_meter_fw_body, { "Body", "meter.fw.body", FT_BYTES, BASE_NONE, NULL, 0x0, NULL, HFILL } },
        { &hf_meter_fw_tlv_info_magic, { "TLV info magic", "meter.fw.tlv_info.magic", FT_UINT16, BASE_HEX,
          VALS(tlv_info_magic_vals), 0x0, NULL, HFILL } },
        { &hf_meter_fw_tlv_info_tlv_tot, { "TLV area length", "meter.fw.tlv_info.tlv_tot", FT_UINT16, BASE_DEC, NULL, 0x0,
          "tlv_tot: the area's length including the 4-byte info", HFILL } },
        { &hf_meter_fw_tlv, { "TLV", "meter.fw.tlv", FT_NONE, BASE_NONE, NULL, 0x0, NULL, HFILL } },
        { &hf_meter_fw_tlv_type, { "Type", "meter.fw.tlv.type", FT_UINT16, BASE_HEX, VALS(tlv_type_vals), 0x0,
          NULL, HFILL } },
        { &hf_meter_fw_tlv_len, { "Length", "meter.fw.tlv.len", FT_UINT16, BASE_DEC, NULL, 0x0, NULL, HFILL } },
        { &hf_meter_fw_tlv_value, { "Value", "meter.fw.tlv.value", FT_BYTES, BASE_NONE, NULL, 0x0, NULL, HFILL } },
        { &hf_meter_fw_trailing, { "Trailing bytes", "meter.fw.trailing", FT_BYTES, BASE_NONE, NULL, 0x0,
          "Bytes after the TLV area", HFILL } },
        { &hf_meter_fw_image_size, { "Image length", "meter.fw.image_size", FT_UINT32, BASE_DEC, NULL, 0x0,
          "Length of the reassembled image", HFILL } },
        { &hf_meter_fw_sha256_computed, { "SHA-256 (computed)", "meter.fw.sha256.computed", FT_BYTES, BASE_NONE,
          NULL, 0x0, "SHA-256 over header, body and protected TLVs", HFILL } },
        { &hf_meter_fw_sha256_status, { "SHA-256 status", "meter.fw.sha256.status", FT_UINT8, BASE_DEC,
          VALS(sha256_status_vals), 0x0, "Computed SHA-256 against the image's SHA-256 TLV", HFILL } },
        { &hf_meter_fw_sha256_config, { "SHA-256 (config)", "meter.fw.sha256.config", FT_BYTES, BASE_NONE,
          NULL, 0x0, "The SHA-256 the meter's config blob announced", HFILL } },
        { &hf_meter_fw_sha256_config_status, { "SHA-256 against the config", "meter.fw.sha256.config_status",
          FT_UINT8, BASE_DEC, VALS(config_status_vals), 0x0,
          "Computed SHA-256 against the meter's last config blob", HFILL } },
        { &hf_meter_fw_config_in, { "Config in", "meter.fw.config_in", FT_FRAMENUM, BASE_NONE,
          FRAMENUM_TYPE(FT_FRAMENUM_NONE), 0x0, "The config blob compared with", HFILL } },
        { &hf_meter_fw_signature_status, { "Signature status", "meter.fw.signature.status", FT_UINT8, BASE_DEC,
          VALS(signature_status_vals), 0x0, "Ed25519 signature over the computed SHA-256", HFILL } },
        { &hf_meter_fw_reassembled_in, { "Reassembled in", "meter.fw.reassembled_in", FT_FRAMENUM, BASE_NONE,
          FRAMENUM_TYPE(FT_FRAMENUM_NONE), 0x0, "The frame that completed the image", HFILL } },
        { &hf_meter_fw_contiguous, { "Contiguous bytes", "meter.fw.contiguous", FT_UINT32, BASE_DEC, NULL, 0x0,
          "An unfinished download: bytes received contiguously from offset 0", HFILL } },
    };
    static gint *ett[] = {
        &ett_meter_fw, &ett_meter_fw_hdr, &ett_meter_fw_flags, &ett_meter_fw_version, &ett_meter_fw_image,
        &ett_meter_fw_tlv_area, &ett_meter_fw_tlv,
    };
    static ei_register_info ei[] = {
        { &ei_meter_fw_bad_magic, { "meter.fw.bad_magic", PI_MALFORMED, PI_ERROR,
          "Not an MCUboot image: bad header magic", EXPFILL } },
        { &ei_meter_fw_hdr_size_bad, { "meter.fw.hdr_size_bad", PI_MALFORMED, PI_ERROR,
          "hdr_size is below 32 or beyond the image", EXPFILL } },
        { &ei_meter_fw_img_size_bad, { "meter.fw.img_size_bad", PI_MALFORMED, PI_ERROR,
          "img_size runs past the image", EXPFILL } },
        { &ei_meter_fw_tlv_info_bad, { "meter.fw.tlv_info_bad", PI_MALFORMED, PI_ERROR,
          "TLV info missing or with a bad magic", EXPFILL } },
        { &ei_meter_fw_tlv_tot_bad, { "meter.fw.tlv_tot_bad", PI_MALFORMED, PI_ERROR,
          "tlv_tot inconsistent with the image", EXPFILL } },
        { &ei_meter_fw_tlv_past_end, { "meter.fw.tlv_past_end", PI_MALFORMED, PI_ERROR,
          "TLV runs past the end of its area", EXPFILL } },
        { &ei_meter_fw_tlv_too_many, { "meter.fw.tlv_too_many", PI_UNDECODED, PI_NOTE,
          "Too many TLVs: the rest are not shown", EXPFILL } },
        { &ei_meter_fw_trailing_bytes, { "meter.fw.trailing_bytes", PI_PROTOCOL, PI_WARN,
          "Bytes after the TLV area", EXPFILL } },
        { &ei_meter_fw_sha256_bad, { "meter.fw.sha256_bad", PI_CHECKSUM, PI_ERROR,
          "Image SHA-256 does not match its SHA-256 TLV", EXPFILL } },
        { &ei_meter_fw_sha256_good, { "meter.fw.sha256_good", PI_CHECKSUM, PI_CHAT,
          "Image SHA-256 matches its SHA-256 TLV", EXPFILL } },
        { &ei_meter_fw_sha256_config_mismatch, { "meter.fw.sha256_config_mismatch", PI_CHECKSUM, PI_WARN,
          "Image SHA-256 differs from the one in the meter's config", EXPFILL } },
        { &ei_meter_fw_signature_bad, { "meter.fw.signature_bad", PI_SECURITY, PI_ERROR,
          "Ed25519 signature does not verify with the configured public key", EXPFILL } },
        { &ei_meter_fw_signature_good, { "meter.fw.signature_good", PI_SECURITY, PI_CHAT,
          "Ed25519 signature verifies with the configured public key", EXPFILL } },
        { &ei_meter_fw_incomplete, { "meter.fw.incomplete", PI_SEQUENCE, PI_NOTE,
          "Firmware download partial", EXPFILL } },
        { &ei_meter_fw_error_response_payload, { "meter.fw.error_response_payload", PI_PROTOCOL, PI_WARN,
          "Error response carrying firmware bytes", EXPFILL } },
        { &ei_meter_fw_block_conflict, { "meter.fw.block_conflict", PI_SEQUENCE, PI_WARN,
          "Block bytes differ from an earlier copy (the first copy is kept)", EXPFILL } },
        { &ei_meter_fw_too_large, { "meter.fw.too_large", PI_UNDECODED, PI_WARN,
          "Block beyond the reassembly limit", EXPFILL } },
    };
    expert_module_t *expert;

    proto_register_field_array(proto_meter, hf, array_length(hf));
    proto_register_subtree_array(ett, array_length(ett));
    expert = expert_register_protocol(proto_meter);
    expert_register_field_array(expert, ei, array_length(ei));

    fw_eo_tap = meter_fw_export_register(proto_meter);

    meter_session_add_part(METER_PART_FW, xfers_new, xfers_free);
}

void proto_reg_handoff_meter_fw(void)
{
}
