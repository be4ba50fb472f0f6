/* meter-cfg-value.c: generic CBOR items of the config blob in the tree
 * (meter.cfg.value.*), drawn from the items core/meter_cfg.c read. The
 * bound is the parser's: it reads containers to METER_CFG_MAX_DEPTH levels
 * and skips deeper content (why not wscbor_skip_next_item(): see its
 * skip_item()), and this file marks such a container meter.cfg.too_deep.
 * An item cut short by the end of the data is shown as far as it was read.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <inttypes.h>
#include <string.h>

#include <epan/packet.h>
#include <epan/expert.h>
#include <epan/wscbor.h>
#include <wsutil/str_util.h>   /* plurality() */

#include "meter-cfg-value.h"

#define CFG_BYTES_MAX 16        /* bytes of a byte string shown in a label */
#define CFG_TAGS_MAX 4          /* tags shown per item */

int hf_meter_cfg_value_uint = -1;
int hf_meter_cfg_value_int = -1;
int hf_meter_cfg_value_float = -1;
int hf_meter_cfg_value_text = -1;
int hf_meter_cfg_value_bytes = -1;
int hf_meter_cfg_value_bool = -1;
int hf_meter_cfg_value_simple = -1;
int hf_meter_cfg_value_array = -1;
int hf_meter_cfg_value_map = -1;
int hf_meter_cfg_value_tag = -1;
gint ett_meter_cfg_value = -1;
expert_field ei_meter_cfg_bad_cbor = EI_INIT;
expert_field ei_meter_cfg_too_deep = EI_INIT;
expert_field ei_meter_cfg_indefinite = EI_INIT;

const value_string meter_cfg_simple_vals[] = {
    { 20, "false" },
    { 21, "true" },
    { 22, "null" },
    { 23, "undefined" },
    { 31, "break" },
    { 0, NULL },
};

const char *meter_cfg_printable(wmem_allocator_t *pool, const char *s, glong max_chars)
{
    wmem_strbuf_t *b;
    const char *end;
    glong n;

    if (!s)
        return "";
    if (!g_utf8_validate(s, -1, NULL))
        return "(invalid UTF-8)";
    n = g_utf8_strlen(s, -1);
    end = n > max_chars ? g_utf8_offset_to_pointer(s, max_chars) : s + strlen(s);
    b = wmem_strbuf_new(pool, "");
    for (const char *p = s; p < end; p++) {
        const unsigned char ch = (unsigned char)*p;
        wmem_strbuf_append_c(b, (ch < 0x20 || ch == 0x7f) ? '.' : (char)ch);
    }
    if (n > max_chars)
        wmem_strbuf_append(b, "\xe2\x80\xa6");   /* U+2026 */
    return wmem_strbuf_finalize(b);
}

static const char *cfg_bytes_text(wmem_allocator_t *pool, const guint8 *bytes, gint len)
{
    wmem_strbuf_t *b = wmem_strbuf_new(pool, "");

    for (gint i = 0; i < len && i < CFG_BYTES_MAX; i++)
        wmem_strbuf_append_printf(b, "%02x", bytes[i]);
    if (len > CFG_BYTES_MAX)
        wmem_strbuf_append(b, "\xe2\x80\xa6");
    wmem_strbuf_append_printf(b, " (%d byte%s)", len, plurality(len, "", "s"));
    return wmem_strbuf_finalize(b);
}

void meter_cfg_flag_indefinite(meter_cfg_display_t *d, proto_item *pi)
{
    if (!d->indefinite_flagged) {
        d->indefinite_flagged = TRUE;
        expert_add_info(d->pinfo, pi, &ei_meter_cfg_indefinite);
    }
}

/* An array's or a map's content; FALSE if cut short. */
static gboolean cfg_add_items(meter_cfg_display_t *d, proto_tree *sub, const meter_cfg_value_t *v, gboolean is_map)
{
    const guint n = meter_cfg_n_items(v);

    for (guint i = 0; i < n; i++) {
        if (is_map) {
            const char *key_text;
            proto_item *vi;

            if (!meter_cfg_value_add(d, sub, meter_cfg_item(v, i), NULL, &key_text))
                return FALSE;
            if (++i == n)
                return FALSE;   /* the data ended before the value */
            if (!meter_cfg_value_add(d, sub, meter_cfg_item(v, i), &vi, NULL))
                return FALSE;
            proto_item_prepend_text(vi, "[%s] ", key_text);
        } else if (!meter_cfg_value_add(d, sub, meter_cfg_item(v, i), NULL, NULL)) {
            return FALSE;
        }
    }
    return v->complete;
}

gboolean meter_cfg_value_add(meter_cfg_display_t *d, proto_tree *tree, const meter_cfg_value_t *v,
                             proto_item **out_pi, const char **out_text)
{
    packet_info *pinfo = d->pinfo;
    tvbuff_t *tvb = d->tvb;
    wmem_allocator_t *pool = pinfo->pool;
    const wscbor_chunk_t *c;
    proto_item *pi = NULL;
    const char *text = "";

    if (!v)
        return FALSE;
    c = v->chunk;
    /* a container shows its head however far its content was read; a scalar
     * shows only once its value is */
    if (!v->complete && c->type_major != CBOR_TYPE_ARRAY && c->type_major != CBOR_TYPE_MAP)
        return FALSE;

    switch (c->type_major) {
    case CBOR_TYPE_UINT:
        pi = proto_tree_add_cbor_uint64(tree, hf_meter_cfg_value_uint, pinfo, tvb, c, &v->uint);
        text = wmem_strdup_printf(pool, "%" PRIu64, v->uint);
        break;
    case CBOR_TYPE_NEGINT:
        pi = proto_tree_add_cbor_int64(tree, hf_meter_cfg_value_int, pinfo, tvb, c, &v->sint);
        text = wmem_strdup_printf(pool, "%" PRId64, v->sint);
        break;
    case CBOR_TYPE_BYTESTRING:
        pi = proto_tree_add_bytes_with_length(tree, hf_meter_cfg_value_bytes, tvb, c->start, c->data_length,
                                              v->bytes, v->bytes_len);
        wscbor_chunk_mark_errors(pinfo, pi, c);
        text = cfg_bytes_text(pool, v->bytes, v->bytes_len);
        break;
    case CBOR_TYPE_STRING:
        pi = proto_tree_add_string(tree, hf_meter_cfg_value_text, tvb, c->start, c->data_length, v->text);
        wscbor_chunk_mark_errors(pinfo, pi, c);
        text = wmem_strdup_printf(pool, "\"%s\"", meter_cfg_printable(pool, v->text, METER_CFG_TEXT_MAX));
        break;
    case CBOR_TYPE_ARRAY:
    case CBOR_TYPE_MAP: {
        const gboolean is_map = c->type_major == CBOR_TYPE_MAP;
        const int hf = is_map ? hf_meter_cfg_value_map : hf_meter_cfg_value_array;
        const char *what = is_map ? "pair" : "item";
        proto_tree *sub;

        if (v->indefinite)
            pi = proto_tree_add_uint64_format_value(tree, hf, tvb, c->start, c->head_length, 0, "indefinite length");
        else
            pi = proto_tree_add_uint64_format_value(tree, hf, tvb, c->start, c->head_length, c->head_value,
                                                    "%" PRIu64 " %s%s", c->head_value, what,
                                                    plurality(c->head_value, "", "s"));
        wscbor_chunk_mark_errors(pinfo, pi, c);
        sub = proto_item_add_subtree(pi, ett_meter_cfg_value);
        if (!cfg_add_items(d, sub, v, is_map))
            return FALSE;
        if (v->too_deep) {
            expert_add_info_format(pinfo, pi, &ei_meter_cfg_too_deep,
                                   "Nested deeper than %u levels: content not shown", METER_CFG_MAX_DEPTH);
            if (v->skipped_errors)
                expert_add_info_format(pinfo, pi, &ei_meter_cfg_bad_cbor, "%u CBOR error%s in the content not shown",
                                       v->skipped_errors, plurality(v->skipped_errors, "", "s"));
            text = is_map ? "{\xe2\x80\xa6}" : "[\xe2\x80\xa6]";
        } else {
            const guint64 n = is_map ? meter_cfg_n_items(v) / 2 : meter_cfg_n_items(v);

            if (v->indefinite) {
                proto_item_append_text(pi, ", %" PRIu64 " %s%s", n, what, plurality(n, "", "s"));
                meter_cfg_flag_indefinite(d, pi);
            }
            text = wmem_strdup_printf(pool, is_map ? "{%" PRIu64 " pair%s}" : "[%" PRIu64 " item%s]",
                                      n, plurality(n, "", "s"));
        }
        proto_item_set_end(pi, tvb, v->end);
        break;
    }
    case CBOR_TYPE_FLOAT_CTRL:
        if (c->type_minor == CBOR_CTRL_FALSE || c->type_minor == CBOR_CTRL_TRUE) {
            pi = proto_tree_add_boolean(tree, hf_meter_cfg_value_bool, tvb, c->start, c->head_length,
                                        c->type_minor == CBOR_CTRL_TRUE);
            text = c->type_minor == CBOR_CTRL_TRUE ? "true" : "false";
        } else if (v->is_float) {
            pi = proto_tree_add_double(tree, hf_meter_cfg_value_float, tvb, c->start, c->head_length, v->number);
            text = wmem_strdup_printf(pool, "%g", v->number);
        } else {
            pi = proto_tree_add_uint(tree, hf_meter_cfg_value_simple, tvb, c->start, c->head_length, v->simple);
            /* try_val_to_str: val_to_str's signature changed in 4.6. */
            text = try_val_to_str(v->simple, meter_cfg_simple_vals);
            if (!text)
                text = wmem_strdup_printf(pool, "simple(%u)", v->simple);
            if (wscbor_is_indefinite_break(c))
                expert_add_info_format(pinfo, pi, &ei_meter_cfg_bad_cbor, "Break (0xff) where an item belongs");
        }
        wscbor_chunk_mark_errors(pinfo, pi, c);
        break;
    default:    /* tags are part of the chunk: a chunk never has major type 6 */
        pi = proto_tree_add_uint64(tree, hf_meter_cfg_value_tag, tvb, c->start, c->head_length, c->head_value);
        wscbor_chunk_mark_errors(pinfo, pi, c);
        break;
    }

    if (wmem_list_count(c->tags) > 0) {
        /* shown up to CFG_TAGS_MAX: a blob can hold thousands of nested tags */
        proto_tree *sub = proto_item_add_subtree(pi, ett_meter_cfg_value);
        wmem_strbuf_t *tags = wmem_strbuf_new(pool, "");
        const guint ntags = wmem_list_count(c->tags);
        guint shown = 0;
        for (wmem_list_frame_t *f = wmem_list_head(c->tags); f && shown < CFG_TAGS_MAX; f = wmem_list_frame_next(f)) {
            const wscbor_tag_t *tag = (const wscbor_tag_t *)wmem_list_frame_data(f);
            proto_tree_add_uint64(sub, hf_meter_cfg_value_tag, tvb, tag->start, tag->length, tag->value);
            wmem_strbuf_append_printf(tags, "%stag %" PRIu64, shown ? ", " : "", tag->value);
            shown++;
        }
        if (ntags > shown)
            wmem_strbuf_append_printf(tags, " and %u more", ntags - shown);
        proto_item_append_text(pi, " (%s)", wmem_strbuf_get_str(tags));
        text = wmem_strdup_printf(pool, "%s (%s)", text, wmem_strbuf_get_str(tags));
    }
    if (out_pi)
        *out_pi = pi;
    if (out_text)
        *out_text = text;
    return TRUE;
}
