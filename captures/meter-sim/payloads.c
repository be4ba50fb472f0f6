/* payloads.c: builds the meter's application payloads for the generator.
 *
 * Follows shared/meter-protocol.md: the config blob (CBOR, RFC 8949), the
 * SenML-CBOR history pack (RFC 8428 section 6) and the MCUboot image format
 * (header, TLV info 0x6907, key hash / SHA-256 / Ed25519 TLVs; Ed25519 per
 * RFC 8032, via libgcrypt).  Output is byte-identical for identical inputs.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "payloads.h"
#include "gcrypt_init.h"
#include "cbor_enc.h"

#include <math.h>
#include <string.h>

#include <gcrypt.h>

/* ------------------------------------------------------------------------ */
/* Config blob                                                              */

/* Text from a fixed-size char field: bounded by the field, so a field filled
 * to the last byte without a NUL cannot over-read. */
static void put_text_field(GByteArray *out, const char *s, gsize cap)
{
    const char *nul = memchr(s, '\0', cap);
    gsize n = nul ? (gsize)(nul - s) : cap;

    cbor_put_head(out, 3, n);
    if (n > 0)
        g_byte_array_append(out, (const guint8 *)s, (guint)n);
}
#define PUT_FIELD(out, field) put_text_field((out), (field), sizeof(field))

/* Config keys, meter-protocol.md "Config blob". */
enum {
    CFG_DEVICE_ID = 1, CFG_CONFIG_VERSION, CFG_SAMPLE_INTERVAL,
    CFG_UPLOAD_INTERVAL, CFG_HISTORY_PATH, CFG_METER_KIND, CFG_PULSE_FACTOR,
    CFG_UNIT, CFG_UTC_OFFSET, CFG_FIRMWARE, CFG_BLOCK_SZX, CFG_ACK_TIMEOUT_MS,
    CFG_POINTS, CFG_AUTH_TOKEN,
    CFG_N_KEYS = CFG_AUTH_TOKEN
};

GByteArray *payload_config_encode(const meter_config_t *cfg)
{
    GByteArray *out;

    g_return_val_if_fail(cfg != NULL, NULL);
    g_return_val_if_fail(cfg->n_points <= G_N_ELEMENTS(cfg->points), NULL);

    out = g_byte_array_new();
    /* Keys in ascending order, none omitted: a well-formed reference blob. */
    cbor_put_map(out, CFG_N_KEYS);

    cbor_put_uint(out, CFG_DEVICE_ID);
    PUT_FIELD(out, cfg->device_id);
    cbor_put_uint(out, CFG_CONFIG_VERSION);
    cbor_put_uint(out, cfg->config_version);
    cbor_put_uint(out, CFG_SAMPLE_INTERVAL);
    cbor_put_uint(out, cfg->sample_interval);
    cbor_put_uint(out, CFG_UPLOAD_INTERVAL);
    cbor_put_uint(out, cfg->upload_interval);
    cbor_put_uint(out, CFG_HISTORY_PATH);
    PUT_FIELD(out, cfg->history_path);
    cbor_put_uint(out, CFG_METER_KIND);
    cbor_put_uint(out, cfg->meter_kind);
    /* "float" in the spec; sent as binary64 so no precision is lost. */
    cbor_put_uint(out, CFG_PULSE_FACTOR);
    cbor_put_double(out, cfg->pulse_factor);
    cbor_put_uint(out, CFG_UNIT);
    PUT_FIELD(out, cfg->unit);
    cbor_put_uint(out, CFG_UTC_OFFSET);
    cbor_put_int(out, cfg->utc_offset);

    cbor_put_uint(out, CFG_FIRMWARE);
    cbor_put_map(out, 4);
    cbor_put_uint(out, 1);
    PUT_FIELD(out, cfg->fw_version);
    cbor_put_uint(out, 2);
    PUT_FIELD(out, cfg->fw_path);
    cbor_put_uint(out, 3);
    cbor_put_uint(out, cfg->fw_size);
    cbor_put_uint(out, 4);
    cbor_put_bytes(out, cfg->fw_sha256, sizeof cfg->fw_sha256);

    cbor_put_uint(out, CFG_BLOCK_SZX);
    cbor_put_uint(out, cfg->block_szx);
    cbor_put_uint(out, CFG_ACK_TIMEOUT_MS);
    cbor_put_uint(out, cfg->ack_timeout_ms);

    cbor_put_uint(out, CFG_POINTS);
    cbor_put_array(out, cfg->n_points);
    for (guint i = 0; i < cfg->n_points; i++) {
        const cfg_point_t *pt = &cfg->points[i];

        cbor_put_map(out, 3);
        cbor_put_uint(out, 1);
        PUT_FIELD(out, pt->name);
        cbor_put_uint(out, 2);
        PUT_FIELD(out, pt->point_id);
        cbor_put_uint(out, 3);
        PUT_FIELD(out, pt->unit);
    }

    cbor_put_uint(out, CFG_AUTH_TOKEN);
    PUT_FIELD(out, cfg->auth_token);
    return out;
}

/* ------------------------------------------------------------------------ */
/* SenML-CBOR history pack                                                  */

/* RFC 8428 section 6 integer labels. */
enum {
    SENML_BN = -2, SENML_BT = -3,
    SENML_N = 0, SENML_U = 1, SENML_V = 2, SENML_T = 6
};

/* Times as integers when integral (what a meter with a seconds RTC sends),
 * otherwise binary64. The range check keeps the cast defined. */
static void put_time(GByteArray *out, double t)
{
    if (isfinite(t) && t == floor(t) && t >= -9.2e18 && t <= 9.2e18)
        cbor_put_int(out, (gint64)t);
    else
        cbor_put_double(out, t);
}

static void put_sample(GByteArray *out, const senml_pack_t *pack,
                       const senml_sample_t *s, double bt)
{
    cbor_put_int(out, SENML_N);
    PUT_FIELD(out, pack->name);
    cbor_put_int(out, SENML_U);
    PUT_FIELD(out, pack->unit);
    /* v is always binary64, even when integral: one code path, and the
     * decoder must accept a float register value anyway. */
    cbor_put_int(out, SENML_V);
    cbor_put_double(out, s->value);
    cbor_put_int(out, SENML_T);
    put_time(out, s->time - bt);
}

GByteArray *payload_senml_encode(const senml_pack_t *pack)
{
    GByteArray *out;
    double bt;
    char bn[64];

    g_return_val_if_fail(pack != NULL, NULL);
    g_return_val_if_fail(pack->samples != NULL || pack->n_samples == 0, NULL);

    out = g_byte_array_new();
    cbor_put_array(out, pack->n_samples);
    if (pack->n_samples == 0)
        return out;

    bt = pack->samples[0].time;
    g_snprintf(bn, sizeof bn, "urn:dev:mac:%016" G_GINT64_MODIFIER "x:",
               pack->eui64);

    /* First record: base name and base time, then the first sample. */
    cbor_put_map(out, 6);
    cbor_put_int(out, SENML_BN);
    cbor_put_text(out, bn);
    cbor_put_int(out, SENML_BT);
    put_time(out, bt);
    put_sample(out, pack, &pack->samples[0], bt);

    for (guint i = 1; i < pack->n_samples; i++) {
        cbor_put_map(out, 4);
        put_sample(out, pack, &pack->samples[i], bt);
    }
    return out;
}

/* ------------------------------------------------------------------------ */
/* MCUboot image                                                            */

#define MCUBOOT_IMAGE_MAGIC 0x96f3b83du
#define MCUBOOT_HDR_LEN     32u
#define TLV_INFO_MAGIC      0x6907u
#define TLV_KEYHASH         0x01u
#define TLV_SHA256          0x10u
#define TLV_ED25519         0x24u
#define KEY_LABEL           "meterscope-ed25519"

static GQuark payloads_error_quark(void)
{
    return g_quark_from_static_string("meterscope-payloads-error");
}

static void put_le16(GByteArray *out, guint16 v)
{
    guint8 b[2] = { (guint8)v, (guint8)(v >> 8) };

    g_byte_array_append(out, b, sizeof b);
}

static void put_le32(GByteArray *out, guint32 v)
{
    guint8 b[4] = { (guint8)v, (guint8)(v >> 8), (guint8)(v >> 16),
                    (guint8)(v >> 24) };

    g_byte_array_append(out, b, sizeof b);
}

/* splitmix64 (Steele, Lea, Flood 2014): fixed arithmetic, so the body is
 * the same on every platform and glib version, unlike GRand's contract. */
static guint64 splitmix64(guint64 *state)
{
    guint64 z = (*state += G_GUINT64_CONSTANT(0x9e3779b97f4a7c15));

    z = (z ^ (z >> 30)) * G_GUINT64_CONSTANT(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * G_GUINT64_CONSTANT(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

static void put_random_body(GByteArray *out, guint64 seed, guint32 n)
{
    guint64 st = seed;
    guint8 b[8];

    while (n > 0) {
        guint64 r = splitmix64(&st);
        guint k = n < 8 ? n : 8;

        for (guint i = 0; i < 8; i++)
            b[i] = (guint8)(r >> (8 * i));
        g_byte_array_append(out, b, k);
        n -= k;
    }
}

static gboolean gcry_fail(GError **err, const char *what, gcry_error_t e)
{
    g_set_error(err, payloads_error_quark(), 1, "libgcrypt: %s: %s",
                what, gcry_strerror(e));
    return FALSE;
}

/* Copies the value of sub-list `name` of sexp into dst, which must be
 * exactly len bytes long. */
static gboolean sexp_fixed(gcry_sexp_t sexp, const char *name, guint8 *dst,
                           gsize len)
{
    gcry_sexp_t tok = gcry_sexp_find_token(sexp, name, 0);
    const char *data;
    size_t n = 0;

    if (tok == NULL)
        return FALSE;
    data = gcry_sexp_nth_data(tok, 1, &n);
    if (data == NULL || n != len) {
        gcry_sexp_release(tok);
        return FALSE;
    }
    memcpy(dst, data, len);
    gcry_sexp_release(tok);
    return TRUE;
}

/* Deterministic Ed25519 key from key_seed, public key and signature of
 * msg (RFC 8032 PureEdDSA; libgcrypt takes d as the 32-byte secret seed). */
static gboolean ed25519_sign(guint64 key_seed, const guint8 *msg, gsize msg_len,
                             guint8 pubkey[32], guint8 sig[64], GError **err)
{
    guint8 seed_in[sizeof KEY_LABEL - 1 + 8];
    guint8 d[32];
    gcry_sexp_t key = NULL, data = NULL, sigexp = NULL;
    gcry_ctx_t ctx = NULL;
    gcry_mpi_t q = NULL;
    const guint8 *qb;
    unsigned int qbits = 0;
    gcry_error_t e;
    gboolean ok = FALSE;

    memcpy(seed_in, KEY_LABEL, sizeof KEY_LABEL - 1);
    for (guint i = 0; i < 8; i++)
        seed_in[sizeof KEY_LABEL - 1 + i] = (guint8)(key_seed >> (8 * i));
    gcry_md_hash_buffer(GCRY_MD_SHA256, d, seed_in, sizeof seed_in);

    e = gcry_sexp_build(&key, NULL,
                        "(private-key (ecc (curve Ed25519) (flags eddsa)"
                        " (d %b)))", (int)sizeof d, d);
    if (e) {
        gcry_fail(err, "private key", e);
        goto out;
    }
    /* gcry_pk_genkey cannot take a given secret; an EC context on the key
     * derives Q from d, and "q@eddsa" yields its 32-byte RFC 8032 form. */
    e = gcry_mpi_ec_new(&ctx, key, NULL);
    if (e) {
        gcry_fail(err, "EC context", e);
        goto out;
    }
    q = gcry_mpi_ec_get_mpi("q@eddsa", ctx, 1);
    qb = q ? gcry_mpi_get_opaque(q, &qbits) : NULL;
    if (qb == NULL || qbits != 256) {
        g_set_error(err, payloads_error_quark(), 1,
                    "libgcrypt: cannot derive the Ed25519 public key");
        goto out;
    }
    memcpy(pubkey, qb, 32);

    e = gcry_sexp_build(&data, NULL,
                        "(data (flags eddsa) (hash-algo sha512) (value %b))",
                        (int)msg_len, msg);
    if (e) {
        gcry_fail(err, "data", e);
        goto out;
    }
    e = gcry_pk_sign(&sigexp, data, key);
    if (e) {
        gcry_fail(err, "sign", e);
        goto out;
    }
    if (!sexp_fixed(sigexp, "r", sig, 32) ||
        !sexp_fixed(sigexp, "s", sig + 32, 32)) {
        g_set_error(err, payloads_error_quark(), 1,
                    "libgcrypt: unexpected Ed25519 signature shape");
        goto out;
    }
    ok = TRUE;

out:
    gcry_mpi_release(q);
    gcry_ctx_release(ctx);
    gcry_sexp_release(sigexp);
    gcry_sexp_release(data);
    gcry_sexp_release(key);
    memset(d, 0, sizeof d);
    return ok;
}

static void put_tlv(GByteArray *out, guint16 type, const guint8 *v, guint16 len)
{
    put_le16(out, type);
    put_le16(out, len);
    g_byte_array_append(out, v, len);
}

gboolean payload_mcuboot_build(const mcuboot_params_t *p, guint64 key_seed,
                               mcuboot_image_t *out, GError **err)
{
    GByteArray *img;
    guint8 keyhash[32];
    const guint16 tlv_tot = 4 + (4 + 32) + (4 + 32) + (4 + 64);
    guint hdr_pad;

    g_return_val_if_fail(p != NULL && out != NULL, FALSE);
    g_return_val_if_fail(err == NULL || *err == NULL, FALSE);

    memset(out, 0, sizeof *out);
    if (p->hdr_size < MCUBOOT_HDR_LEN) {
        g_set_error(err, payloads_error_quark(), 2,
                    "MCUboot hdr_size %u is below the 32-byte header",
                    p->hdr_size);
        return FALSE;
    }
    sim_gcrypt_init();

    img = g_byte_array_sized_new(p->hdr_size + p->body_size + tlv_tot);

    /* Header (32 bytes, little-endian), no protected TLVs. */
    put_le32(img, MCUBOOT_IMAGE_MAGIC);
    put_le32(img, p->load_addr);
    put_le16(img, p->hdr_size);
    put_le16(img, 0);                  /* protect_tlv_size */
    put_le32(img, p->body_size);       /* img_size: body only */
    put_le32(img, p->flags);
    g_byte_array_append(img, &p->major, 1);
    g_byte_array_append(img, &p->minor, 1);
    put_le16(img, p->revision);
    put_le32(img, p->build);
    put_le32(img, 0);                  /* pad */

    hdr_pad = p->hdr_size - MCUBOOT_HDR_LEN;
    if (hdr_pad > 0) {
        guint old = img->len;

        g_byte_array_set_size(img, old + hdr_pad);
        memset(img->data + old, 0, hdr_pad);
    }
    put_random_body(img, p->body_seed, p->body_size);

    /* The image hash covers header (with padding) and body; the signature
     * is made over that digest, as MCUboot's image validation expects. */
    gcry_md_hash_buffer(GCRY_MD_SHA256, out->sha256, img->data, img->len);
    if (!ed25519_sign(key_seed, out->sha256, sizeof out->sha256,
                      out->pubkey, out->signature, err)) {
        g_byte_array_unref(img);
        memset(out, 0, sizeof *out);
        return FALSE;
    }
    /* Key hash over the raw 32-byte key, as the spec says; imgtool hashes
     * the key's DER SubjectPublicKeyInfo instead, so a real bootloader
     * would not match this TLV (decoders only display it). */
    gcry_md_hash_buffer(GCRY_MD_SHA256, keyhash, out->pubkey,
                        sizeof out->pubkey);

    put_le16(img, TLV_INFO_MAGIC);
    put_le16(img, tlv_tot);
    put_tlv(img, TLV_KEYHASH, keyhash, sizeof keyhash);
    put_tlv(img, TLV_SHA256, out->sha256, sizeof out->sha256);
    put_tlv(img, TLV_ED25519, out->signature, sizeof out->signature);

    out->image = img;
    return TRUE;
}

void payload_mcuboot_clear(mcuboot_image_t *img)
{
    if (img == NULL)
        return;
    if (img->image != NULL)
        g_byte_array_unref(img->image);
    memset(img, 0, sizeof *img);
}
