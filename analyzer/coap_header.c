/* coap_header.c: CoAP's header, token and the options the pairing uses,
 * read by the reader the plugin uses too (common/coap_options.h).
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <string.h>
#include "coap_header.h"
#include "coap_options.h"

gboolean ms_coap_header_parse(const guint8 *b, gsize n, ms_coap_header_t *h)
{
    meter_coap_reader_t r;
    meter_coap_option_t o;
    meter_coap_next_t next;
    gint64 block1 = -1, block2 = -1;

    memset(h, 0, sizeof(*h));
    h->block = -1;
    if (!meter_coap_read_header(&r, b, n))
        return FALSE;
    h->type = r.type;
    h->tkl = r.tkl;
    h->code = r.code;
    h->mid = r.mid;
    for (guint i = 0; i < r.tkl; i++)
        g_snprintf(h->token + 2 * i, 3, "%02x", r.token[i]);
    /* A payload marker with no payload after it is taken as the end of the options. */
    GString *path = g_string_new(NULL);
    while ((next = meter_coap_next_option(&r, &o)) == METER_COAP_OPTION) {
        if (o.number == METER_COAP_OPT_URI_PATH) {
            g_string_append_c(path, '/');
            g_string_append_len(path, (const char *)o.value, (gssize)o.length);
        } else if ((o.number == METER_COAP_OPT_BLOCK2 || o.number == METER_COAP_OPT_BLOCK1) && o.length <= 3) {
            *(o.number == METER_COAP_OPT_BLOCK2 ? &block2 : &block1) = meter_coap_option_block(&o).num;
        }
    }
    if (next != METER_COAP_BAD) {
        h->block = block2 >= 0 ? block2 : block1;
        g_strlcpy(h->path, path->str, sizeof(h->path));
    }
    g_string_free(path, TRUE);
    return next != METER_COAP_BAD;
}
