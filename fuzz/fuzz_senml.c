/* fuzz_senml.c: SenML CBOR packs (RFC 8428) as the history decoder reads them.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "fuzz_common.h"
#include "senml.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_init_once();
    wmem_allocator_t *alloc = wmem_allocator_new(WMEM_ALLOCATOR_SIMPLE);
    tvbuff_t *tvb = tvb_new_real_data(data, (guint)size, (gint)size);
    senml_pack_t *p = senml_parse(alloc, tvb, 0, 4096);

    /* Walk everything the decoder would display. */
    for (guint i = 0; p && i < senml_pack_n_records(p); i++) {
        senml_record_t *rec = senml_pack_record(p, i);
        for (int l = SENML_LABEL_MIN; l <= SENML_VD; l++)
            (void)senml_record_field(rec, (senml_label_t)l);
    }
    for (guint i = 0; p && i < senml_pack_n_problems(p); i++)
        (void)senml_problem_name(senml_pack_problem(p, i)->kind);
    tvb_free(tvb);
    wmem_destroy_allocator(alloc);
    return 0;
}
