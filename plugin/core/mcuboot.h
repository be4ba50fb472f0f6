/* mcuboot.h: MCUboot firmware images (header, TLV areas, SHA-256 and
 * Ed25519 checks) read from a byte buffer or a tvb, with no proto_tree, so
 * the dissector (packet-meter-fw.c) and the unit tests
 * (tests/plugin-unit/test_mcuboot.c) share one parser.
 *
 * Follows the MCUboot image format (docs/design/image_tool / bootutil
 * image.h): a little-endian 32-byte header, the body at hdr_size, then an
 * optional protected TLV area (info magic 0x6908, protect_tlv_size bytes)
 * and the TLV area (info magic 0x6907). SHA-256 covers header, body and
 * protected TLVs; the Ed25519 signature (RFC 8032) is over that digest.
 *
 * Parsing is bounded: no length is trusted beyond the bytes given, at most
 * MCUBOOT_MAX_TLVS TLVs are recorded, and every problem is a bit in
 * mcuboot_image_info_t.problems so the dissector can flag it.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef MCUBOOT_H
#define MCUBOOT_H

#include <glib.h>
#include <epan/tvbuff.h>

#define MCUBOOT_MAGIC            0x96f3b83du
#define MCUBOOT_HEADER_LEN       32u
#define MCUBOOT_TLV_INFO         0x6907u   /* unprotected TLV area */
#define MCUBOOT_TLV_PROT_INFO    0x6908u   /* protected TLV area */
#define MCUBOOT_TLV_INFO_LEN     4u
#define MCUBOOT_MAX_TLVS         64u

/* TLV types (bootutil/image.h). */
#define MCUBOOT_TLV_KEYHASH      0x01u
#define MCUBOOT_TLV_PUBKEY       0x02u
#define MCUBOOT_TLV_SHA256       0x10u
#define MCUBOOT_TLV_SHA384       0x11u
#define MCUBOOT_TLV_RSA2048_PSS  0x20u
#define MCUBOOT_TLV_ECDSA224     0x21u
#define MCUBOOT_TLV_ECDSA_SIG    0x22u   /* ECDSA P-256 (or P-384) */
#define MCUBOOT_TLV_RSA3072_PSS  0x23u
#define MCUBOOT_TLV_ED25519      0x24u
#define MCUBOOT_TLV_ENC_RSA2048  0x30u
#define MCUBOOT_TLV_ENC_KW       0x31u
#define MCUBOOT_TLV_ENC_EC256    0x32u
#define MCUBOOT_TLV_ENC_X25519   0x33u
#define MCUBOOT_TLV_DEPENDENCY   0x40u
#define MCUBOOT_TLV_SEC_CNT      0x50u
#define MCUBOOT_TLV_BOOT_RECORD  0x60u

/* Header flags (bootutil/image.h). */
#define MCUBOOT_F_PIC                  0x00000001u
#define MCUBOOT_F_ENCRYPTED_AES128     0x00000004u
#define MCUBOOT_F_ENCRYPTED_AES256     0x00000008u
#define MCUBOOT_F_NON_BOOTABLE         0x00000010u
#define MCUBOOT_F_RAM_LOAD             0x00000020u
#define MCUBOOT_F_ROM_FIXED            0x00000100u

typedef struct {
    guint32 magic;
    guint32 load_addr;
    guint16 hdr_size;
    guint16 protect_tlv_size;
    guint32 img_size;            /* body only */
    guint32 flags;
    guint8  major, minor;
    guint16 revision;
    guint32 build;
    guint32 pad;
} mcuboot_hdr_t;

/* Problems, one bit each. */
enum {
    MCUBOOT_P_BAD_MAGIC      = 1u << 0,  /* header magic is not 0x96f3b83d */
    MCUBOOT_P_HDR_SIZE       = 1u << 1,  /* hdr_size < 32, beyond the image, or no 32-byte header */
    MCUBOOT_P_IMG_SIZE       = 1u << 2,  /* hdr_size + img_size beyond the image */
    MCUBOOT_P_TLV_INFO       = 1u << 3,  /* TLV info missing or with a bad magic */
    MCUBOOT_P_TLV_TOT        = 1u << 4,  /* tlv_tot < 4, past the end, or protect_tlv_size disagrees */
    MCUBOOT_P_TLV_PAST_END   = 1u << 5,  /* a TLV runs past its area or the image */
    MCUBOOT_P_TOO_MANY_TLVS  = 1u << 6,  /* more than MCUBOOT_MAX_TLVS: the rest not listed */
    MCUBOOT_P_TRAILING       = 1u << 7,  /* bytes after the TLV area */
};

typedef struct {
    guint32 offset;    /* of the TLV's type field, in the image */
    guint16 type;
    guint16 len;       /* as declared */
    gboolean protected_area;
    gboolean past_end; /* len runs past the area or the image: value not usable */
} mcuboot_tlv_t;

typedef struct {
    gboolean present;  /* the 4-byte info was inside the image */
    guint32 offset;    /* of the info, in the image */
    guint16 magic;
    guint16 tlv_tot;   /* includes the 4-byte info */
} mcuboot_tlv_area_t;

typedef struct {
    mcuboot_hdr_t hdr;
    gboolean hdr_ok;             /* the 32-byte header was there */
    guint32 image_len;           /* bytes given */
    guint64 tlv_start;           /* hdr_size + img_size (64-bit: may overflow 32) */
    guint64 hashed_len;          /* hdr_size + img_size + protect_tlv_size */
    mcuboot_tlv_area_t prot;     /* only when protect_tlv_size != 0 */
    mcuboot_tlv_area_t unprot;
    guint64 end;                 /* where the last TLV area ends */
    mcuboot_tlv_t tlvs[MCUBOOT_MAX_TLVS];
    guint n_tlvs;
    guint32 problems;
} mcuboot_image_info_t;

/* Header from a buffer / a tvb; FALSE (h untouched) when fewer than 32
 * bytes are available. Validity (magic, sizes) is left to the caller or to
 * mcuboot_parse(). */
gboolean mcuboot_hdr_read(const guint8 *buf, gsize len, mcuboot_hdr_t *h);
gboolean mcuboot_hdr_read_tvb(tvbuff_t *tvb, gint offset, mcuboot_hdr_t *h);

/* Problems visible from the header alone (bad magic, hdr_size < 32). */
guint32 mcuboot_hdr_problems(const mcuboot_hdr_t *h);

/* "major.minor.revision+build" into buf (at least 32 bytes). */
void mcuboot_version_str(const mcuboot_hdr_t *h, char *buf, gsize size);

/* Parses a whole image: header, then the TLV area(s) after the body. */
void mcuboot_parse(const guint8 *img, gsize len, mcuboot_image_info_t *info);

/* The i-th TLV's value, or NULL when it ran past the end. */
const guint8 *mcuboot_tlv_value(const guint8 *img, const mcuboot_image_info_t *info, guint i);

/* Index of the first usable TLV of this type with this length, or -1. */
gint mcuboot_find_tlv(const mcuboot_image_info_t *info, guint16 type, guint16 len);

typedef enum {
    MCUBOOT_CHECK_ABSENT = 0,    /* nothing to check against (no TLV) */
    MCUBOOT_CHECK_GOOD,
    MCUBOOT_CHECK_BAD,
    MCUBOOT_CHECK_NOT_CHECKED,   /* no key, or cannot compute */
    MCUBOOT_CHECK_UNSUPPORTED,   /* a signature type this does not verify (ECDSA, RSA) */
} mcuboot_check_t;

typedef struct {
    gboolean computed;           /* sha256_computed is valid */
    guint8  sha256_computed[32];
    mcuboot_check_t sha256;      /* against the SHA-256 TLV */
    mcuboot_check_t signature;   /* Ed25519 TLV over the TLV's digest */
    gint sha256_tlv;             /* TLV index or -1 */
    gint sig_tlv;
} mcuboot_verify_t;

/* SHA-256 over the hashed range and the signature check. pubkey may be
 * NULL (signature then NOT_CHECKED when there is an Ed25519 TLV). The
 * signature is verified over the computed digest, as MCUboot does (so a
 * good signature means the image bytes are the signed ones); an Ed25519
 * TLV of the wrong length counts as BAD. */
void mcuboot_verify(const guint8 *img, const mcuboot_image_info_t *info,
                    const guint8 *pubkey, mcuboot_verify_t *v);

/* SHA-256 of len bytes. */
void mcuboot_sha256(const guint8 *buf, gsize len, guint8 out[32]);

/* FALSE for keys libgcrypt 1.10 cannot take without aborting the process
 * (value below 2^192, e.g. all zero); see mcuboot.c. */
gboolean mcuboot_ed25519_key_usable(const guint8 pubkey[32]);

/* Ed25519 (RFC 8032 PureEdDSA) with libgcrypt: GOOD, BAD, or NOT_CHECKED
 * for a key that is not usable. */
mcuboot_check_t mcuboot_ed25519_verify(const guint8 pubkey[32], const guint8 *msg,
                                       gsize msg_len, const guint8 sig[64]);

/* 64 hex digits (spaces and ':' ignored) into 32 bytes; FALSE otherwise,
 * and for a key mcuboot_ed25519_key_usable() refuses. */
gboolean mcuboot_parse_pubkey_hex(const char *s, guint8 out[32]);

#endif
