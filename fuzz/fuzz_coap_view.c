/* fuzz_coap_view.c: one CoAP message (RFC 7252 options, RFC 7959 blocks)
 * as the hook reads it from what stock CoAP dissected.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "fuzz_common.h"
#include "coap_view.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    meter_coap_t m;

    fuzz_init_once();
    wmem_allocator_t *alloc = wmem_allocator_new(WMEM_ALLOCATOR_SIMPLE);
    tvbuff_t *tvb = tvb_new_real_data(data, (guint)size, (gint)size);
    if (coap_view_parse(tvb, 0, (gint)size, alloc, &m) && m.payload)
        (void)tvb_captured_length(m.payload);
    tvb_free(tvb);
    wmem_destroy_allocator(alloc);
    return 0;
}
