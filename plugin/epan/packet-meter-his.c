/* packet-meter-his.c: the meter's history upload, a SenML pack in CBOR
 * (RFC 8428 section 6) POSTed to the history path, in one request or over
 * several Block1 requests (RFC 7959) that are reassembled here.
 *
 * Parsing and RFC 8428 resolution live in senml.c; this file shows the
 * result (meter.his.*), turns senml.c's problems into expert infos on the
 * CBOR items concerned, and reassembles Block1 uploads in a block map by
 * byte offset (NUM * 2^(SZX+4), core/block_map.c) keyed by the hook's
 * transfer id, so that repeated blocks (CoAP retransmissions, MAC retries
 * passed up again) are harmless and a block-size change mid-transfer still
 * reassembles. The blocks of a pack are listed the way epan's reassembly
 * lists fragments (meter.his.blocks.*), so filters and columns keep working.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <math.h>

#include <epan/packet.h>
#include <epan/expert.h>
#include <epan/proto_data.h>
#include <wsutil/str_util.h>
#include <wsutil/wmem/wmem.h>

#include "ws_compat.h"
#include "packet-meter-his.h"
#include "meter-session.h"
#include "meter-prefs.h"
#include "block_map.h"
#include "senml.h"
#include "utc_text.h"

#define CF_SENML_CBOR 112        /* application/senml+cbor, RFC 8428 */
#define CF_CBOR       60         /* application/cbor */
#define HIS_INFO_NAMES 3         /* distinct names listed in the Info column */
/* A pack larger than this is not reassembled: a bound on memory on garbage
 * (no history pack comes near it). */
#define HIS_MAX_PACK  BLOCK_MAP_MAX_SIZE


static int hf_his = -1;
static int hf_his_records = -1;
static int hf_his_record = -1;
static int hf_his_name = -1;
static int hf_his_time = -1;
static int hf_his_time_relative = -1;
static int hf_his_value = -1;
static int hf_his_unit = -1;
static int hf_his_string = -1;
static int hf_his_bool = -1;
static int hf_his_data = -1;
static int hf_his_sum = -1;
static int hf_his_update_time = -1;
static int hf_his_base_name = -1;
static int hf_his_base_time = -1;
static int hf_his_base_unit = -1;
static int hf_his_base_value = -1;
static int hf_his_base_sum = -1;
static int hf_his_version = -1;
static int hf_his_distinct_names = -1;
static int hf_his_time_first = -1;
static int hf_his_time_last = -1;
static int hf_his_block_num = -1;
static int hf_his_block_offset = -1;
static int hf_his_block_size = -1;
static int hf_his_block_length = -1;
static int hf_his_block_more = -1;
static int hf_his_reassembled_after = -1;
/* the blocks of a reassembled pack */
static int hf_his_blocks = -1;
static int hf_his_block = -1;
static int hf_his_block_overlap = -1;
static int hf_his_block_overlap_conflicts = -1;
static int hf_his_block_multiple_tails = -1;
static int hf_his_block_too_long = -1;
static int hf_his_block_error = -1;
static int hf_his_block_count = -1;
static int hf_his_reassembled_in = -1;
static int hf_his_reassembled_length = -1;
static int hf_his_reassembled_data = -1;

static gint ett_his = -1;
static gint ett_his_record = -1;
static gint ett_his_block1 = -1;
static gint ett_his_blocks = -1;
static gint ett_his_block = -1;

static expert_field ei_his_not_array = EI_INIT;
static expert_field ei_his_empty_pack = EI_INIT;
static expert_field ei_his_not_map = EI_INIT;
static expert_field ei_his_missing_name = EI_INIT;
static expert_field ei_his_invalid_name = EI_INIT;
static expert_field ei_his_wrong_type = EI_INIT;
static expert_field ei_his_unknown_label = EI_INIT;
static expert_field ei_his_must_understand = EI_INIT;
static expert_field ei_his_duplicate_label = EI_INIT;
static expert_field ei_his_no_value = EI_INIT;
static expert_field ei_his_multiple_values = EI_INIT;
static expert_field ei_his_version = EI_INIT;
static expert_field ei_his_invalid_cbor = EI_INIT;
static expert_field ei_his_truncated = EI_INIT;
static expert_field ei_his_too_deep = EI_INIT;
static expert_field ei_his_too_many_records = EI_INIT;
static expert_field ei_his_trailing_data = EI_INIT;
static expert_field ei_his_time_range = EI_INIT;
static expert_field ei_his_content_format = EI_INIT;
static expert_field ei_his_block_size = EI_INIT;
static expert_field ei_his_reassembly = EI_INIT;
static expert_field ei_his_not_reassembled = EI_INIT;

/* senml.c problem kind -> expert info */
static expert_field *const problem_ei[SENML_PROB_COUNT] = {
    [SENML_PROB_NOT_ARRAY] = &ei_his_not_array,
    [SENML_PROB_EMPTY_PACK] = &ei_his_empty_pack,
    [SENML_PROB_NOT_MAP] = &ei_his_not_map,
    [SENML_PROB_MISSING_NAME] = &ei_his_missing_name,
    [SENML_PROB_INVALID_NAME] = &ei_his_invalid_name,
    [SENML_PROB_WRONG_TYPE] = &ei_his_wrong_type,
    [SENML_PROB_UNKNOWN_LABEL] = &ei_his_unknown_label,
    [SENML_PROB_MUST_UNDERSTAND] = &ei_his_must_understand,
    [SENML_PROB_DUPLICATE_LABEL] = &ei_his_duplicate_label,
    [SENML_PROB_NO_VALUE] = &ei_his_no_value,
    [SENML_PROB_MULTIPLE_VALUES] = &ei_his_multiple_values,
    [SENML_PROB_VERSION] = &ei_his_version,
    [SENML_PROB_INVALID_CBOR] = &ei_his_invalid_cbor,
    [SENML_PROB_TRUNCATED] = &ei_his_truncated,
    [SENML_PROB_TOO_DEEP] = &ei_his_too_deep,
    [SENML_PROB_TOO_MANY_RECORDS] = &ei_his_too_many_records,
    [SENML_PROB_TRAILING_DATA] = &ei_his_trailing_data,
};

/* ------------------------------------------------------------------------ */
/* Block1 reassembly, keyed by the hook's transfer id alone.                */

/* A block that joined an upload before its pack was complete. */
typedef struct {
    guint32 frame, offset, len;
    gboolean overlap;           /* some of its bytes had come before */
    gboolean conflict;          /* and some of those differ */
    gboolean other_end;         /* a last block that ends elsewhere than the first one */
    gboolean past_end;          /* it runs past the pack's end (known on completion) */
} his_block_t;

typedef struct {
    block_map_t *map;
    GArray *blocks;             /* his_block_t, as they came; by offset once complete */
    guint32 complete_frame;     /* 0 until the pack is complete */
} his_upload_t;

typedef enum {
    HIS_BLOCK_DIRECT = 0,       /* not block-wise, or block 0 without more */
    HIS_BLOCK_ADDED,            /* added to the reassembly */
    HIS_BLOCK_AFTER_COMPLETE,   /* repeated after its pack was reassembled */
    HIS_BLOCK_NOT_ADDED,        /* reassembly off, no transfer id, error packet */
} his_block_state_t;

typedef struct {
    his_block_state_t state;
    his_upload_t *upload;       /* ADDED: its upload; NULL when the capture cut its bytes */
    guint32 reassembled_in;     /* AFTER_COMPLETE: the frame */
    gboolean beyond_limit;      /* ADDED: it ends past HIS_MAX_PACK, nothing of it kept */
} his_frame_t;

static void upload_free(gpointer p)
{
    his_upload_t *u = (his_upload_t *)p;

    block_map_free(u->map);
    g_array_free(u->blocks, TRUE);
    g_free(u);
}

/* The session's slot: transfer id -> his_upload_t. */
static void *uploads_new(void)
{
    return g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, upload_free);
}

static void uploads_free(void *uploads)
{
    g_hash_table_destroy((GHashTable *)uploads);
}

static his_upload_t *upload_get(meter_session_t *session, guint32 transfer_id)
{
    GHashTable *his_uploads = (GHashTable *)meter_session_part(session, METER_PART_HIS);
    his_upload_t *u = (his_upload_t *)g_hash_table_lookup(his_uploads, GUINT_TO_POINTER(transfer_id));

    if (!u) {
        u = g_new0(his_upload_t, 1);
        u->map = block_map_new(HIS_MAX_PACK);
        u->blocks = g_array_new(FALSE, FALSE, sizeof(his_block_t));
        g_hash_table_insert(his_uploads, GUINT_TO_POINTER(transfer_id), u);
    }
    return u;
}

static gint block_cmp(gconstpointer a, gconstpointer b)
{
    const his_block_t *x = (const his_block_t *)a, *y = (const his_block_t *)b;

    if (x->offset != y->offset)
        return x->offset < y->offset ? -1 : 1;
    return x->frame < y->frame ? -1 : x->frame > y->frame;
}

/* The blocks of a complete pack by offset, then as they came, as epan's
 * reassembly ordered its fragments; one starting past the end is only that. */
static void upload_completed(his_upload_t *u, guint32 frame)
{
    guint32 total = block_map_total(u->map);

    u->complete_frame = frame;
    g_array_sort(u->blocks, block_cmp);
    for (guint i = 0; i < u->blocks->len; i++) {
        his_block_t *b = &g_array_index(u->blocks, his_block_t, i);

        b->past_end = (guint64)b->offset + b->len > total;
        if (b->offset >= total)
            b->overlap = b->conflict = FALSE;
    }
}

/* First pass: the block joins its upload (unless the capture cut it short). */
static void upload_add(his_upload_t *u, his_frame_t *fr, tvbuff_t *payload, packet_info *pinfo,
                       guint32 offset, guint32 length, gboolean last)
{
    block_map_add_t r;
    his_block_t b = { pinfo->num, offset, length, FALSE, FALSE, FALSE, FALSE };

    if (tvb_captured_length(payload) < length)
        return;
    fr->upload = u;
    block_map_add(u->map, offset, length ? tvb_get_ptr(payload, 0, length) : NULL, length, last, &r);
    fr->beyond_limit = r.beyond_limit;
    b.overlap = r.overlap;
    b.conflict = r.conflict;
    b.other_end = r.other_end;
    g_array_append_val(u->blocks, b);
    if (r.completed)
        upload_completed(u, pinfo->num);
}

/* The blocks a pack came from, drawn as epan's show_fragment_tree() draws
 * the fragments of a reassembly, in the meter.his.blocks.* fields. */
static void add_blocks(proto_tree *tree, packet_info *pinfo, tvbuff_t *pack, const his_upload_t *u)
{
    guint n = u->blocks->len;
    guint32 len = tvb_captured_length(pack);
    gboolean illegal = FALSE;
    proto_item *ti, *bi;
    proto_tree *bt;

    ti = proto_tree_add_item(tree, hf_his_blocks, pack, 0, -1, ENC_NA);
    proto_item_set_generated(ti);
    bt = proto_item_add_subtree(ti, ett_his_blocks);
    proto_item_set_text(ti, "%u %s (%u byte%s): ", n,
                        proto_registrar_get_name(n == 1 ? hf_his_block : hf_his_blocks), len, plurality(len, "", "s"));
    for (guint i = 0; i < n; i++) {
        const his_block_t *b = &g_array_index(u->blocks, his_block_t, i);
        gboolean bad = b->conflict || b->other_end || b->past_end;
        int hf = bad ? hf_his_block_error : hf_his_block;

        proto_item_append_text(ti, "%s#%u(%u)", i ? ", " : "", b->frame, b->len);
        if (b->len == 0)
            bi = proto_tree_add_uint_format(bt, hf, pack, b->offset, 0, b->frame, "Frame: %u (no data)", b->frame);
        else
            bi = proto_tree_add_uint_format(bt, hf, pack, b->offset, b->len, b->frame,
                                            "Frame: %u, payload: %u-%u (%u byte%s)", b->frame, b->offset,
                                            b->offset + b->len - 1, b->len, plurality(b->len, "", "s"));
        proto_item_set_generated(bi);
        meter_mark_frame_depended_upon(pinfo, b->frame);
        if (b->overlap || bad) {
            proto_tree *ft = proto_item_add_subtree(bi, ett_his_block);

            if (b->overlap)
                proto_item_set_generated(proto_tree_add_boolean(ft, hf_his_block_overlap, pack, 0, 0, TRUE));
            if (b->conflict)
                proto_item_set_generated(proto_tree_add_boolean(ft, hf_his_block_overlap_conflicts, pack, 0, 0, TRUE));
            if (b->other_end)
                proto_item_set_generated(proto_tree_add_boolean(ft, hf_his_block_multiple_tails, pack, 0, 0, TRUE));
            if (b->past_end)
                proto_item_set_generated(proto_tree_add_boolean(ft, hf_his_block_too_long, pack, 0, 0, TRUE));
        }
        illegal |= bad;
    }
    proto_item_set_generated(proto_tree_add_uint(bt, hf_his_block_count, pack, 0, 0, n));
    proto_item_set_generated(proto_tree_add_uint(bt, hf_his_reassembled_length, pack, 0, 0, len));
    proto_item_set_generated(proto_tree_add_item(bt, hf_his_reassembled_data, pack, 0, len, ENC_NA));
    if (illegal)
        col_add_str(pinfo->cinfo, COL_INFO, "[Illegal Block1 blocks]");
}

/* ------------------------------------------------------------------------ */
/* Display helpers                                                          */

/* Seconds (possibly fractional, possibly negative) to nstime; FALSE when
 * out of what nstime_t/time_t can hold. */
static gboolean seconds_to_nstime(double s, nstime_t *ns)
{
    double whole, frac;

    if (!isfinite(s) || fabs(s) > 1e15)
        return FALSE;
    frac = modf(fabs(s), &whole);
    ns->secs = (time_t)whole;
    ns->nsecs = (int)lround(frac * 1e9);
    if (ns->nsecs >= 1000000000) {
        ns->secs++;
        ns->nsecs -= 1000000000;
    }
    if (s < 0) {
        ns->secs = -ns->secs;
        ns->nsecs = -ns->nsecs;
    }
    return TRUE;
}

/* SenML seconds as a short UTC label (common/utc_text.h) in scope. */
static char *seconds_to_utc_label(wmem_allocator_t *scope, double t, gboolean date, gboolean seconds)
{
    char *s = utc_label(t, date, seconds), *r = s ? wmem_strdup(scope, s) : NULL;

    g_free(s);
    return r;
}

/* An item's range clamped to the bytes present (expert items on a
 * truncated pack must not throw). */
static void clamp_range(tvbuff_t *tvb, gint *offset, gint *length)
{
    gint avail = tvb_captured_length(tvb);

    if (*offset > avail)
        *offset = avail;
    if (*length < 0 || *length > avail - *offset)
        *length = avail - *offset;
}

static proto_item *add_problem_item(proto_tree *tree, packet_info *pinfo, tvbuff_t *tvb,
                                    const senml_problem_t *p)
{
    gint off = p->offset, len = p->length;

    clamp_range(tvb, &off, &len);
    return proto_tree_add_expert_format(tree, pinfo, problem_ei[p->kind], tvb, off, len, "%s", p->detail);
}

/* The record's short name for labels: n as sent, else the resolved name. */
static const char *record_short_name(const senml_record_t *r)
{
    const senml_field_t *n = senml_record_field(r, SENML_N);

    if (n->present && n->valid && n->str[0])
        return n->str;
    return r->name;
}

static void add_base_fields(proto_tree *tree, packet_info *pinfo, tvbuff_t *tvb, const senml_record_t *r)
{
    const senml_field_t *f;
    proto_item *ti;

    f = senml_record_field(r, SENML_BVER);
    if (f->present && f->valid)
        proto_tree_add_uint64(tree, hf_his_version, tvb, f->offset, f->length, (guint64)f->ival);
    f = senml_record_field(r, SENML_BN);
    if (f->present && f->valid)
        proto_tree_add_string(tree, hf_his_base_name, tvb, f->offset, f->length, f->str);
    f = senml_record_field(r, SENML_BT);
    if (f->present && f->valid) {
        char *when = f->num >= SENML_ABSOLUTE_TIME_MIN ? seconds_to_utc_label(pinfo->pool, f->num, TRUE, TRUE) : NULL;
        ti = proto_tree_add_double(tree, hf_his_base_time, tvb, f->offset, f->length, f->num);
        if (when)
            proto_item_append_text(ti, " s (%sZ)", when);
        else
            proto_item_append_text(ti, " s (relative to now)");
    }
    f = senml_record_field(r, SENML_BU);
    if (f->present && f->valid)
        proto_tree_add_string(tree, hf_his_base_unit, tvb, f->offset, f->length, f->str);
    f = senml_record_field(r, SENML_BV);
    if (f->present && f->valid)
        proto_tree_add_double(tree, hf_his_base_value, tvb, f->offset, f->length, f->num);
    f = senml_record_field(r, SENML_BS);
    if (f->present && f->valid)
        proto_tree_add_double(tree, hf_his_base_sum, tvb, f->offset, f->length, f->num);
}

/* A resolved item sits on the record's own label when it has one, else on
 * the whole record, and is marked generated when base values took part. */
static void field_range(const senml_record_t *r, senml_label_t l, gint *off, gint *len)
{
    const senml_field_t *f = senml_record_field(r, l);

    if (f->present) {
        *off = f->offset;
        *len = f->length;
    } else {
        *off = r->offset;
        *len = r->length;
    }
}

static proto_tree *add_record(proto_tree *tree, packet_info *pinfo, tvbuff_t *tvb, const senml_record_t *r)
{
    proto_item *ri, *ti;
    proto_tree *rt;
    gint off, len;
    const senml_field_t *f;
    nstime_t ns;

    off = r->offset;
    len = r->length;
    clamp_range(tvb, &off, &len);
    ri = proto_tree_add_uint_format(tree, hf_his_record, tvb, off, len, r->index, "Record %u", r->index);
    rt = proto_item_add_subtree(ri, ett_his_record);
    if (!r->is_map) {
        proto_item_append_text(ri, ": not a map");
        return rt;
    }

    add_base_fields(rt, pinfo, tvb, r);
    if (r->base_only) {
        proto_item_append_text(ri, ": base values only");
        return rt;
    }

    /* name */
    if (r->name[0]) {
        field_range(r, SENML_N, &off, &len);
        ti = proto_tree_add_string(rt, hf_his_name, tvb, off, len, r->name);
        if (r->base_name)
            proto_item_set_generated(ti);
        proto_item_append_text(ri, ": %s", record_short_name(r));
    } else {
        proto_item_append_text(ri, ": (no name)");
    }

    /* value */
    switch (r->value_kind) {
    case SENML_VALUE_NUMBER:
        field_range(r, SENML_V, &off, &len);
        ti = proto_tree_add_double(rt, hf_his_value, tvb, off, len, r->value);
        if (r->unit)
            proto_item_append_text(ti, " %s", r->unit);
        if (r->has_base_value) {
            proto_item_append_text(ti, " (bv %.17g + v %.17g)", r->base_value,
                                   senml_record_field(r, SENML_V)->num);
            proto_item_set_generated(ti);
        }
        proto_item_append_text(ri, " = %.17g%s%s", r->value, r->unit ? " " : "", r->unit ? r->unit : "");
        break;
    case SENML_VALUE_STRING:
        field_range(r, SENML_VS, &off, &len);
        proto_tree_add_string(rt, hf_his_string, tvb, off, len, r->string);
        proto_item_append_text(ri, " = \"%s\"", r->string);
        break;
    case SENML_VALUE_BOOL:
        field_range(r, SENML_VB, &off, &len);
        proto_tree_add_boolean(rt, hf_his_bool, tvb, off, len, r->boolean);
        proto_item_append_text(ri, " = %s", r->boolean ? "true" : "false");
        break;
    case SENML_VALUE_DATA:
        field_range(r, SENML_VD, &off, &len);
        proto_tree_add_bytes_with_length(rt, hf_his_data, tvb, off, len, r->data, (gint)r->data_len);
        proto_item_append_text(ri, " = %u bytes", r->data_len);
        break;
    case SENML_VALUE_NONE:
        break;
    }
    if (r->unit) {
        f = senml_record_field(r, SENML_U);
        field_range(r, f->present ? SENML_U : SENML_BU, &off, &len);
        ti = proto_tree_add_string(rt, hf_his_unit, tvb, off, len, r->unit);
        if (!f->present)
            proto_item_set_generated(ti);
    }
    if (r->has_sum) {
        field_range(r, SENML_S, &off, &len);
        ti = proto_tree_add_double(rt, hf_his_sum, tvb, off, len, r->sum);
        if (r->unit)
            proto_item_append_text(ti, " %s", r->unit);
        if (r->has_base_sum) {
            proto_item_append_text(ti, " (bs %.17g + s %.17g)", r->base_sum, senml_record_field(r, SENML_S)->num);
            proto_item_set_generated(ti);
        }
    }

    /* time */
    field_range(r, SENML_T, &off, &len);
    f = senml_record_field(r, SENML_T);
    if (!seconds_to_nstime(r->time, &ns)) {
        proto_tree_add_expert_format(rt, pinfo, &ei_his_time_range, tvb, off, len,
                                     "Time %g is out of range", r->time);
    } else if (r->time_absolute) {
        char *when = seconds_to_utc_label(pinfo->pool, r->time, TRUE, TRUE);
        ti = proto_tree_add_time(rt, hf_his_time, tvb, off, len, &ns);
        if (r->has_base_time)
            proto_item_append_text(ti, " (bt %.17g + t %.17g)", r->base_time, f->valid ? f->num : 0.0);
        if (r->has_base_time || !f->present)
            proto_item_set_generated(ti);
        if (when)
            proto_item_append_text(ri, " at %sZ", when);
    } else {
        ti = proto_tree_add_time(rt, hf_his_time_relative, tvb, off, len, &ns);
        proto_item_append_text(ti, r->time_given ? " (relative to now)" : " (no time: now)");
        if (r->has_base_time || !f->present)
            proto_item_set_generated(ti);
        if (r->time_given)
            proto_item_append_text(ri, " at now%+gs", r->time);
    }
    if (r->has_update_time) {
        field_range(r, SENML_UT, &off, &len);
        if (seconds_to_nstime(r->update_time, &ns))
            proto_tree_add_time(rt, hf_his_update_time, tvb, off, len, &ns);
        else
            proto_tree_add_expert_format(rt, pinfo, &ei_his_time_range, tvb, off, len,
                                         "Update time %g is out of range", r->update_time);
    }
    return rt;
}

/* " [his 24 rec energy 2026-03-01 04:00..09:45Z]" */
static void add_info(packet_info *pinfo, const senml_pack_t *pack, const char *const *names, guint n_names,
                     guint n_more)
{
    wmem_strbuf_t *s = wmem_strbuf_new(pinfo->pool, "");

    wmem_strbuf_append_printf(s, " [his %u rec", senml_pack_n_records(pack));
    for (guint i = 0; i < n_names; i++)
        wmem_strbuf_append_printf(s, "%s%s", i ? "," : " ", names[i]);
    if (n_more)
        wmem_strbuf_append_printf(s, ",+%u", n_more);
    if (pack->n_absolute > 0) {
        double lo = pack->time_min, hi = pack->time_max;
        gboolean secs = fmod(lo, 60.0) != 0.0 || fmod(hi, 60.0) != 0.0;
        char *a = seconds_to_utc_label(pinfo->pool, lo, TRUE, secs);
        char *day_lo = seconds_to_utc_label(pinfo->pool, lo, TRUE, FALSE);
        char *day_hi = seconds_to_utc_label(pinfo->pool, hi, TRUE, FALSE);
        gboolean same_day = day_lo && day_hi && strncmp(day_lo, day_hi, 10) == 0;
        char *b = seconds_to_utc_label(pinfo->pool, hi, !same_day, secs);

        if (a && b) {
            if (lo == hi)
                wmem_strbuf_append_printf(s, " %sZ", a);
            else
                wmem_strbuf_append_printf(s, " %s..%sZ", a, b);
        }
    }
    if (senml_pack_n_problems(pack) > 0)
        wmem_strbuf_append_printf(s, " %u problem%s", senml_pack_n_problems(pack),
                                  senml_pack_n_problems(pack) == 1 ? "" : "s");
    wmem_strbuf_append_c(s, ']');
    col_append_str(pinfo->cinfo, COL_INFO, wmem_strbuf_get_str(s));
}

/* Decode a whole pack (one datagram, or reassembled). */
static void dissect_pack(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree)
{
    senml_pack_t *pack = senml_parse(pinfo->pool, tvb, 0, meter_prefs.his_max_records);
    guint n = senml_pack_n_records(pack);
    proto_tree **rec_tree = n ? wmem_alloc0_array(pinfo->pool, proto_tree *, n) : NULL;
    const char *names[HIS_INFO_NAMES];
    guint n_names = 0, n_more = 0;
    wmem_map_t *seen = wmem_map_new(pinfo->pool, g_str_hash, g_str_equal);
    proto_item *ti;
    gint off, len;

    off = pack->offset;
    len = pack->head_length;
    clamp_range(tvb, &off, &len);
    ti = proto_tree_add_uint(tree, hf_his_records, tvb, off, len, n);
    if (pack->is_array && !pack->indefinite && pack->declared != n)
        proto_item_append_text(ti, " (of %" G_GUINT64_FORMAT " declared)", pack->declared);

    for (guint i = 0; i < n; i++) {
        const senml_record_t *r = senml_pack_record(pack, i);

        rec_tree[i] = add_record(tree, pinfo, tvb, r);
        if (r->is_map && !r->base_only) {
            const char *nm = record_short_name(r);

            if (nm[0] && !wmem_map_contains(seen, nm)) {
                wmem_map_insert(seen, nm, GUINT_TO_POINTER(1));
                if (n_names < HIS_INFO_NAMES)
                    names[n_names++] = nm;
                else
                    n_more++;
            }
        }
    }
    if (wmem_map_size(seen) > 0) {
        ti = proto_tree_add_uint(tree, hf_his_distinct_names, tvb, 0, 0, wmem_map_size(seen));
        proto_item_set_generated(ti);
    }
    if (pack->n_absolute > 0) {
        nstime_t ns;

        if (seconds_to_nstime(pack->time_min, &ns)) {
            ti = proto_tree_add_time(tree, hf_his_time_first, tvb, 0, 0, &ns);
            proto_item_set_generated(ti);
        }
        if (seconds_to_nstime(pack->time_max, &ns)) {
            ti = proto_tree_add_time(tree, hf_his_time_last, tvb, 0, 0, &ns);
            proto_item_set_generated(ti);
        }
    }

    for (guint i = 0; i < senml_pack_n_problems(pack); i++) {
        const senml_problem_t *p = senml_pack_problem(pack, i);
        proto_tree *t = (p->record >= 0 && (guint)p->record < n) ? rec_tree[p->record] : tree;

        add_problem_item(t, pinfo, tvb, p);
    }
    add_info(pinfo, pack, names, n_names, n_more);
}

/* ------------------------------------------------------------------------ */
/* Block1                                                                   */

static void dissect_block1(tvbuff_t *payload, packet_info *pinfo, proto_tree *his_tree, const meter_ctx_t *ctx)
{
    const meter_block_t *b1 = &ctx->msg->block1;
    guint32 size = meter_block_size(b1->szx);
    guint32 offset = b1->num * size;     /* num < 2^20, size <= 2048: fits */
    guint32 length = tvb_reported_length(payload);
    proto_tree *bt;
    proto_item *ti;
    his_frame_t *fr;
    gboolean added_now = FALSE;
    guint32 complete_in = 0;
    gboolean direct = b1->num == 0 && !b1->more;

    ti = proto_tree_add_uint(his_tree, hf_his_block_num, payload, 0, 0, b1->num);
    proto_item_set_generated(ti);
    proto_item_append_text(ti, " (%u bytes at %u%s)", length, offset, b1->more ? ", more" : ", last");
    bt = proto_item_add_subtree(ti, ett_his_block1);
    ti = proto_tree_add_uint(bt, hf_his_block_offset, payload, 0, 0, offset);
    proto_item_set_generated(ti);
    ti = proto_tree_add_uint(bt, hf_his_block_size, payload, 0, 0, size);
    proto_item_set_generated(ti);
    ti = proto_tree_add_uint(bt, hf_his_block_length, payload, 0, 0, length);
    proto_item_set_generated(ti);
    if (b1->more && length != size)
        expert_add_info_format(pinfo, ti, &ei_his_block_size,
                               "Block %u has %u bytes; every block but the last must have the block size, %u "
                               "(RFC 7959 section 2.2)", b1->num, length, size);
    ti = proto_tree_add_boolean(bt, hf_his_block_more, payload, 0, 0, b1->more);
    proto_item_set_generated(ti);

    if (direct) {
        dissect_pack(payload, pinfo, his_tree);
        return;
    }

    fr = (his_frame_t *)p_get_proto_data(wmem_file_scope(), pinfo, proto_meter, METER_PDATA_HIS_FRAME);
    if (fr == NULL) {
        /* First time this frame is seen (or a second call in one pass). */
        fr = wmem_new0(wmem_file_scope(), his_frame_t);
        if (!meter_prefs.his_reassemble || ctx->transfer_id == 0 || pinfo->flags.in_error_pkt || PINFO_FD_VISITED(pinfo)) {
            fr->state = HIS_BLOCK_NOT_ADDED;
        } else {
            his_upload_t *u = upload_get(ctx->session, ctx->transfer_id);

            if (u->complete_frame) {
                fr->state = HIS_BLOCK_AFTER_COMPLETE;
                fr->reassembled_in = u->complete_frame;
            } else {
                fr->state = HIS_BLOCK_ADDED;
                upload_add(u, fr, payload, pinfo, offset, length, !b1->more);
                added_now = TRUE;
            }
        }
        p_add_proto_data(wmem_file_scope(), pinfo, proto_meter, METER_PDATA_HIS_FRAME, fr);
    }
    /* Where the pack was completed: known to the block that completed it
     * and, in later passes, to every block that joined the upload. */
    if (fr->upload && (added_now || PINFO_FD_VISITED(pinfo)))
        complete_in = fr->upload->complete_frame;

    if (fr->beyond_limit)
        proto_tree_add_expert_format(his_tree, pinfo, &ei_his_reassembly, payload, 0, 0,
                                     "Block1 reassembly error: the block ends beyond %u bytes: not reassembled",
                                     HIS_MAX_PACK);

    switch (fr->state) {
    case HIS_BLOCK_NOT_ADDED:
        proto_tree_add_expert_format(his_tree, pinfo, &ei_his_not_reassembled, payload, 0, 0,
                                     "Block1 upload not reassembled (%s)",
                                     !meter_prefs.his_reassemble ? "reassembly is off in the preferences"
                                     : ctx->transfer_id == 0 ? "no transfer id" : "inside an error packet");
        col_append_fstr(pinfo->cinfo, COL_INFO, " [his block %u]", b1->num);
        return;
    case HIS_BLOCK_AFTER_COMPLETE:
        ti = proto_tree_add_uint(his_tree, hf_his_reassembled_after, payload, 0, 0, fr->reassembled_in);
        proto_item_set_generated(ti);
        col_append_fstr(pinfo->cinfo, COL_INFO, " [his block %u again, pack in #%u]", b1->num, fr->reassembled_in);
        return;
    case HIS_BLOCK_ADDED:
    case HIS_BLOCK_DIRECT:
        break;
    }

    if (complete_in == pinfo->num) {
        const his_upload_t *u = fr->upload;
        guint32 total = block_map_total(u->map);
        tvbuff_t *pack_tvb = tvb_new_child_real_data(payload, block_map_bytes(u->map), total, total);

        add_new_data_source(pinfo, pack_tvb, "Reassembled SenML pack");
        add_blocks(his_tree, pinfo, pack_tvb, u);
        dissect_pack(pack_tvb, pinfo, his_tree);
        return;
    }
    if (complete_in) {
        ti = proto_tree_add_uint(his_tree, hf_his_reassembled_in, payload, 0, 0, complete_in);
        proto_item_set_generated(ti);
        col_append_fstr(pinfo->cinfo, COL_INFO, " [his block %u, pack in #%u]", b1->num, complete_in);
    } else {
        col_append_fstr(pinfo->cinfo, COL_INFO, " [his block %u]", b1->num);
    }
}

void dissect_meter_his(tvbuff_t *payload, packet_info *pinfo, proto_tree *tree, const meter_ctx_t *ctx)
{
    proto_item *ti;
    proto_tree *his_tree;

    if (payload == NULL)
        return;
    ti = proto_tree_add_item(tree, hf_his, payload, 0, -1, ENC_NA);
    his_tree = proto_item_add_subtree(ti, ett_his);

    if (ctx && ctx->msg && ctx->msg->content_format >= 0 &&
        ctx->msg->content_format != CF_SENML_CBOR && ctx->msg->content_format != CF_CBOR)
        expert_add_info_format(pinfo, ti, &ei_his_content_format,
                               "Content-Format %d, not application/senml+cbor (112): decoded as SenML-CBOR anyway",
                               ctx->msg->content_format);

    if (ctx && ctx->msg && ctx->msg->block1.present)
        dissect_block1(payload, pinfo, his_tree, ctx);
    else
        dissect_pack(payload, pinfo, his_tree);
}

/* ------------------------------------------------------------------------ */

void proto_register_meter_his(void)
{
    static hf_register_info hf[] = {
        { &hf_his, { "SenML history", "meter.his", FT_NONE, BASE_NONE, NULL, 0x0,
            "History upload: a SenML pack (RFC 8428)", HFILL } },
        { &hf_his_records, { "Records", "meter.his.records", FT_UINT32, BASE_DEC, NULL, 0x0,
            "Number of records decoded from the pack", HFILL } },
        { &hf_his_record, { "Record", "meter.his.record", FT_UINT32, BASE_DEC, NULL, 0x0,
            "Index of the record in the pack", HFILL } },
        { &hf_his_name, { "Name", "meter.his.name", FT_STRING, BASE_NONE, NULL, 0x0,
            "Resolved name: base name + name", HFILL } },
        { &hf_his_time, { "Time", "meter.his.time", FT_ABSOLUTE_TIME, ABSOLUTE_TIME_UTC, NULL, 0x0,
            "Resolved time (base time + time) when absolute (>= 2^28, RFC 8428 section 4.5.3)", HFILL } },
        { &hf_his_time_relative, { "Time relative to now", "meter.his.time_relative", FT_RELATIVE_TIME,
            BASE_NONE, NULL, 0x0, "Resolved time (base time + time) below 2^28: relative to now", HFILL } },
        { &hf_his_value, { "Value", "meter.his.value", FT_DOUBLE, BASE_NONE, NULL, 0x0,
            "Resolved numeric value: base value + value", HFILL } },
        { &hf_his_unit, { "Unit", "meter.his.unit", FT_STRING, BASE_NONE, NULL, 0x0,
            "Unit, or the base unit", HFILL } },
        { &hf_his_string, { "String value", "meter.his.string", FT_STRING, BASE_NONE, NULL, 0x0, NULL, HFILL } },
        { &hf_his_bool, { "Boolean value", "meter.his.bool", FT_BOOLEAN, BASE_NONE, NULL, 0x0, NULL, HFILL } },
        { &hf_his_data, { "Data value", "meter.his.data", FT_BYTES, BASE_NONE, NULL, 0x0, NULL, HFILL } },
        { &hf_his_sum, { "Sum", "meter.his.sum", FT_DOUBLE, BASE_NONE, NULL, 0x0,
            "Resolved sum: base sum + sum", HFILL } },
        { &hf_his_update_time, { "Update time", "meter.his.update_time", FT_RELATIVE_TIME, BASE_NONE, NULL, 0x0,
            "Maximum time before the next update (ut)", HFILL } },
        { &hf_his_base_name, { "Base name", "meter.his.base_name", FT_STRING, BASE_NONE, NULL, 0x0, NULL, HFILL } },
        { &hf_his_base_time, { "Base time", "meter.his.base_time", FT_DOUBLE, BASE_NONE, NULL, 0x0,
            "Base time as sent, seconds", HFILL } },
        { &hf_his_base_unit, { "Base unit", "meter.his.base_unit", FT_STRING, BASE_NONE, NULL, 0x0, NULL, HFILL } },
        { &hf_his_base_value, { "Base value", "meter.his.base_value", FT_DOUBLE, BASE_NONE, NULL, 0x0, NULL, HFILL } },
        { &hf_his_base_sum, { "Base sum", "meter.his.base_sum", FT_DOUBLE, BASE_NONE, NULL, 0x0, NULL, HFILL } },
        { &hf_his_version, { "Base version", "meter.his.base_version", FT_UINT64, BASE_DEC, NULL, 0x0,
            "SenML version (bver); 10 when absent", HFILL } },
        { &hf_his_distinct_names, { "Distinct names", "meter.his.distinct_names", FT_UINT32, BASE_DEC, NULL, 0x0,
            NULL, HFILL } },
        { &hf_his_time_first, { "First time", "meter.his.time_first", FT_ABSOLUTE_TIME, ABSOLUTE_TIME_UTC, NULL,
            0x0, "Earliest absolute record time", HFILL } },
        { &hf_his_time_last, { "Last time", "meter.his.time_last", FT_ABSOLUTE_TIME, ABSOLUTE_TIME_UTC, NULL,
            0x0, "Latest absolute record time", HFILL } },
        { &hf_his_block_num, { "Block1 number", "meter.his.block.num", FT_UINT32, BASE_DEC, NULL, 0x0,
            "This request's block of the upload", HFILL } },
        { &hf_his_block_offset, { "Offset", "meter.his.block.offset", FT_UINT32, BASE_DEC, NULL, 0x0,
            "Byte offset of the block in the pack: NUM * 2^(SZX+4)", HFILL } },
        { &hf_his_block_size, { "Block size", "meter.his.block.size", FT_UINT32, BASE_DEC, NULL, 0x0,
            "2^(SZX+4)", HFILL } },
        { &hf_his_block_length, { "Payload length", "meter.his.block.length", FT_UINT32, BASE_DEC, NULL, 0x0,
            NULL, HFILL } },
        { &hf_his_block_more, { "More blocks", "meter.his.block.more", FT_BOOLEAN, BASE_NONE, NULL, 0x0,
            NULL, HFILL } },
        { &hf_his_reassembled_after, { "Pack already reassembled in", "meter.his.reassembled_before",
            FT_FRAMENUM, BASE_NONE, FRAMENUM_TYPE(FT_FRAMENUM_NONE), 0x0,
            "This block repeats one of a pack reassembled earlier", HFILL } },
        { &hf_his_blocks, { "Block1 blocks", "meter.his.blocks", FT_NONE, BASE_NONE, NULL, 0x0, NULL, HFILL } },
        { &hf_his_block, { "Block", "meter.his.blocks.frame", FT_FRAMENUM, BASE_NONE, NULL, 0x0, NULL, HFILL } },
        { &hf_his_block_overlap, { "Overlap", "meter.his.blocks.overlap", FT_BOOLEAN, BASE_NONE, NULL, 0x0,
            "Block repeats bytes of another", HFILL } },
        { &hf_his_block_overlap_conflicts, { "Conflicting data in overlap", "meter.his.blocks.overlap.conflicts",
            FT_BOOLEAN, BASE_NONE, NULL, 0x0, NULL, HFILL } },
        { &hf_his_block_multiple_tails, { "Multiple last blocks", "meter.his.blocks.multiple_tails",
            FT_BOOLEAN, BASE_NONE, NULL, 0x0, "Several blocks with M=0 and different ends", HFILL } },
        { &hf_his_block_too_long, { "Block past the end", "meter.his.blocks.too_long", FT_BOOLEAN, BASE_NONE,
            NULL, 0x0, "Block extends past the last block's end", HFILL } },
        { &hf_his_block_error, { "Reassembly error", "meter.his.blocks.error", FT_FRAMENUM, BASE_NONE, NULL, 0x0,
            NULL, HFILL } },
        { &hf_his_block_count, { "Block count", "meter.his.blocks.count", FT_UINT32, BASE_DEC, NULL, 0x0,
            NULL, HFILL } },
        { &hf_his_reassembled_in, { "Pack reassembled in", "meter.his.reassembled_in", FT_FRAMENUM, BASE_NONE,
            FRAMENUM_TYPE(FT_FRAMENUM_NONE), 0x0, "Frame with the last block of this upload", HFILL } },
        { &hf_his_reassembled_length, { "Reassembled pack length", "meter.his.reassembled.length", FT_UINT32,
            BASE_DEC, NULL, 0x0, NULL, HFILL } },
        { &hf_his_reassembled_data, { "Reassembled pack", "meter.his.reassembled.data", FT_BYTES, BASE_NONE,
            NULL, 0x0, NULL, HFILL } },
    };
    static gint *ett[] = {
        &ett_his, &ett_his_record, &ett_his_block1, &ett_his_blocks, &ett_his_block,
    };
    static ei_register_info ei[] = {
        { &ei_his_not_array, { "meter.his.not_array", PI_MALFORMED, PI_ERROR,
            "History payload is not a SenML pack (CBOR array)", EXPFILL } },
        { &ei_his_empty_pack, { "meter.his.empty_pack", PI_PROTOCOL, PI_WARN,
            "SenML pack has no record", EXPFILL } },
        { &ei_his_not_map, { "meter.his.not_map", PI_MALFORMED, PI_ERROR,
            "SenML record is not a CBOR map", EXPFILL } },
        { &ei_his_missing_name, { "meter.his.missing_name", PI_PROTOCOL, PI_WARN,
            "SenML record has no name (neither bn nor n)", EXPFILL } },
        { &ei_his_invalid_name, { "meter.his.invalid_name", PI_PROTOCOL, PI_WARN,
            "SenML name has characters RFC 8428 section 4.5.1 forbids", EXPFILL } },
        { &ei_his_wrong_type, { "meter.his.wrong_type", PI_PROTOCOL, PI_ERROR,
            "SenML label or value has the wrong CBOR type", EXPFILL } },
        { &ei_his_unknown_label, { "meter.his.unknown_label", PI_UNDECODED, PI_NOTE,
            "Unknown SenML label (ignored)", EXPFILL } },
        { &ei_his_must_understand, { "meter.his.must_understand", PI_PROTOCOL, PI_ERROR,
            "Unknown must-understand SenML label: the record must not be used", EXPFILL } },
        { &ei_his_duplicate_label, { "meter.his.duplicate_label", PI_PROTOCOL, PI_WARN,
            "SenML label repeated in one record", EXPFILL } },
        { &ei_his_no_value, { "meter.his.no_value", PI_PROTOCOL, PI_WARN,
            "SenML record has no value and no sum", EXPFILL } },
        { &ei_his_multiple_values, { "meter.his.multiple_values", PI_PROTOCOL, PI_WARN,
            "SenML record has more than one of v, vs, vb, vd", EXPFILL } },
        { &ei_his_version, { "meter.his.version_mismatch", PI_PROTOCOL, PI_NOTE,
            "SenML base version other than 10", EXPFILL } },
        { &ei_his_invalid_cbor, { "meter.his.invalid_cbor", PI_MALFORMED, PI_ERROR,
            "Not well-formed CBOR", EXPFILL } },
        { &ei_his_truncated, { "meter.his.truncated", PI_MALFORMED, PI_ERROR,
            "SenML pack ends inside an item", EXPFILL } },
        { &ei_his_too_deep, { "meter.his.too_deep", PI_UNDECODED, PI_WARN,
            "CBOR nested too deeply: rest not decoded", EXPFILL } },
        { &ei_his_too_many_records, { "meter.his.too_many_records", PI_UNDECODED, PI_WARN,
            "More records than the preference allows: rest not decoded", EXPFILL } },
        { &ei_his_trailing_data, { "meter.his.trailing_data", PI_MALFORMED, PI_WARN,
            "Bytes after the SenML pack", EXPFILL } },
        { &ei_his_time_range, { "meter.his.time_range", PI_PROTOCOL, PI_WARN,
            "SenML time out of range", EXPFILL } },
        { &ei_his_content_format, { "meter.his.content_format", PI_PROTOCOL, PI_NOTE,
            "History upload with a Content-Format other than application/senml+cbor", EXPFILL } },
        { &ei_his_block_size, { "meter.his.block_size", PI_PROTOCOL, PI_WARN,
            "Non-final Block1 block shorter or longer than the block size", EXPFILL } },
        { &ei_his_reassembly, { "meter.his.reassembly_error", PI_MALFORMED, PI_ERROR,
            "Block1 reassembly error", EXPFILL } },
        { &ei_his_not_reassembled, { "meter.his.not_reassembled", PI_UNDECODED, PI_NOTE,
            "Block1 upload not reassembled", EXPFILL } },
    };
    expert_module_t *expert;

    proto_register_field_array(proto_meter, hf, array_length(hf));
    proto_register_subtree_array(ett, array_length(ett));
    expert = expert_register_protocol(proto_meter);
    expert_register_field_array(expert, ei, array_length(ei));

    meter_session_add_part(METER_PART_HIS, uploads_new, uploads_free);
}
