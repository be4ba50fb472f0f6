/* payloads.h: the meter's application payloads, exactly per
 * shared/meter-protocol.md: config blob (CBOR map), SenML-CBOR history pack
 * (RFC 8428) and MCUboot firmware image (SHA-256 and Ed25519 TLVs).
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef PAYLOADS_H
#define PAYLOADS_H
#include <glib.h>

typedef struct {
    char     name[64];       /* SenML name, e.g. "energy" */
    char     point_id[40];   /* gateway point id, a UUID text */
    char     unit[8];
} cfg_point_t;

typedef struct {
    char     device_id[48];
    guint32  config_version;
    guint32  sample_interval;
    guint32  upload_interval;
    char     history_path[32];   /* e.g. "meter/his" */
    guint32  meter_kind;         /* 0 electricity .. 3 thermal */
    double   pulse_factor;
    char     unit[8];
    gint32   utc_offset;         /* minutes */
    char     fw_version[16];     /* firmware sub-map */
    char     fw_path[48];        /* e.g. "firmware/v2.1.0.img" */
    guint32  fw_size;
    guint8   fw_sha256[32];
    guint32  block_szx;
    guint32  ack_timeout_ms;
    cfg_point_t points[4];
    guint    n_points;
    char     auth_token[13];     /* 12 characters */
} meter_config_t;

/* Encodes the config blob as a CBOR map with unsigned-integer keys 1..14. */
GByteArray *payload_config_encode(const meter_config_t *cfg);

typedef struct {
    double   time;               /* absolute UNIX time, seconds */
    double   value;              /* cumulative register */
} senml_sample_t;

typedef struct {
    guint64  eui64;              /* bn = "urn:dev:mac:<16 hex>:" */
    char     name[32];           /* n, e.g. "energy" */
    char     unit[8];            /* u */
    const senml_sample_t *samples;
    guint    n_samples;
} senml_pack_t;

/* SenML-CBOR: first record carries bn, bt (= time of first sample) and the
 * first sample; every record carries n, u, v and t (relative to bt). */
GByteArray *payload_senml_encode(const senml_pack_t *pack);

typedef struct {
    guint8   major, minor;
    guint16  revision;
    guint32  build;
    guint32  load_addr;
    guint16  hdr_size;           /* 32 or more (padding with zeros) */
    guint32  body_size;          /* img_size */
    guint32  flags;
    guint64  body_seed;          /* deterministic pseudo-random body bytes */
} mcuboot_params_t;

typedef struct {
    GByteArray *image;           /* header + body + TLV area */
    guint8      sha256[32];      /* SHA-256 over header + body */
    guint8      pubkey[32];      /* Ed25519 public key */
    guint8      signature[64];   /* Ed25519 over the SHA-256 digest */
} mcuboot_image_t;

/* Builds an MCUboot image: header, body, TLV info 0x6907, TLVs 0x01 key hash
 * (SHA-256 of the public key), 0x10 SHA-256, 0x24 Ed25519 signature.
 * The Ed25519 secret key is SHA-256("meterscope-ed25519" || key_seed LE).
 * Returns FALSE (and sets *err) on a libgcrypt failure. */
gboolean payload_mcuboot_build(const mcuboot_params_t *p, guint64 key_seed,
                               mcuboot_image_t *out, GError **err);
void     payload_mcuboot_clear(mcuboot_image_t *img);

#endif
