/* fuzz_mcuboot.c: an MCUboot image (header, protected and unprotected TLV
 * areas) as the firmware decoder parses and verifies it.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "fuzz_common.h"
#include "mcuboot.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    mcuboot_hdr_t h;
    mcuboot_image_info_t info;
    char version[64];

    fuzz_init_once();
    if (mcuboot_hdr_read(data, size, &h)) {
        (void)mcuboot_hdr_problems(&h);
        mcuboot_version_str(&h, version, sizeof version);
    }
    mcuboot_parse(data, size, &info);
    for (guint i = 0; i < info.n_tlvs; i++)
        (void)mcuboot_tlv_value(data, &info, i);
    (void)mcuboot_find_tlv(&info, 0x10, 32);
    mcuboot_verify_t v;
    mcuboot_verify(data, &info, NULL, &v);
    /* With a key: the input's last 32 bytes, as hex through the preference parser. */
    if (size >= 32) {
        char hex[65];
        guint8 key[32];
        for (int i = 0; i < 32; i++)
            g_snprintf(hex + 2 * i, 3, "%02x", data[size - 32 + i]);
        if (mcuboot_parse_pubkey_hex(hex, key) && mcuboot_ed25519_key_usable(key))
            mcuboot_verify(data, &info, key, &v);
    }
    return 0;
}
