/* vantage_read.c: a capture's CoAP rounds from tshark's stock fields
 * (vantage_read.h).
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <errno.h>
#include <string.h>
#include "coap_header.h"
#include "vantage_read.h"
#include "radio_timing.h"

enum {
    F_NUMBER, F_TIME, F_SRC16, F_DST16, F_SEQ, F_ACK_TO, F_FRAGMENTS, F_IP_SRC, F_IP_DST, F_SPORT, F_DPORT,
    F_PAYLOAD, F_FRAG_SIZE, F_FRAG_OFFSET, N_FIELDS
};
static const char *const field_names[N_FIELDS + 1] = {   /* NULL-terminated */
    "frame.number", "frame.time_epoch", "wpan.src16", "wpan.dst16", "wpan.seq_no", "wpan.ack_to",
    "6lowpan.fragment", "ipv6.src", "ipv6.dst", "udp.srcport", "udp.dstport", "udp.payload",
    "6lowpan.frag.size", "6lowpan.frag.offset",
};

typedef struct {
    guint   group;               /* transmission group: a frame and its MAC retries */
    double  time;
} frame_info_t;

typedef struct {
    guint16 seq;
    guint   group;
    double  time;
} link_last_t;

struct ms_vantage_reader {
    GArray     *frames;          /* frame_info_t by frame number */
    GArray     *group_acked;     /* gboolean by group */
    GHashTable *link_last;       /* "src>dst" -> link_last_t */
    GHashTable *last_round;      /* key -> ms_round_t* (the latest round of that message) */
    GPtrArray  *copy_fragments;  /* per round copy: GArray of frame numbers, to check ACKs at the end */
    GPtrArray  *copy_of;         /* the ms_copy_t each entry of copy_fragments belongs to */
    GArray     *frag1s;          /* ms_partial_t of every first fragment */
    GArray     *frag1_group;     /* guint: its transmission group */
    GHashTable *groups_used;     /* groups with a frame in a complete copy */
};
typedef struct ms_vantage_reader reader_t;

ms_vantage_t *ms_vantage_new(const char *name, const char *file)
{
    ms_vantage_t *v = g_new0(ms_vantage_t, 1);
    reader_t *r = g_new0(reader_t, 1);

    v->name = g_strdup(name);
    v->file = g_strdup(file);
    v->rounds = g_ptr_array_new();
    r->frames = g_array_new(FALSE, TRUE, sizeof(frame_info_t));
    r->group_acked = g_array_new(FALSE, TRUE, sizeof(gboolean));
    r->link_last = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
    r->last_round = g_hash_table_new(g_str_hash, g_str_equal);
    r->copy_fragments = g_ptr_array_new_with_free_func((GDestroyNotify)g_array_unref);
    r->copy_of = g_ptr_array_new();
    r->frag1s = g_array_new(FALSE, FALSE, sizeof(ms_partial_t));
    r->frag1_group = g_array_new(FALSE, FALSE, sizeof(guint));
    r->groups_used = g_hash_table_new(g_direct_hash, g_direct_equal);
    v->partials = g_array_new(FALSE, FALSE, sizeof(ms_partial_t));
    v->reader = r;
    return v;
}

static reader_t *reader_of(ms_vantage_t *v)
{
    return v->reader;
}

static void reader_free(reader_t *r)
{
    if (!r)
        return;
    g_array_unref(r->frames);
    g_array_unref(r->group_acked);
    g_hash_table_destroy(r->link_last);
    g_hash_table_destroy(r->last_round);
    g_ptr_array_unref(r->copy_fragments);
    g_ptr_array_unref(r->copy_of);
    g_array_unref(r->frag1s);
    g_array_unref(r->frag1_group);
    g_hash_table_destroy(r->groups_used);
    g_free(r);
}

static void round_free(gpointer p)
{
    ms_round_t *m = p;

    g_free(m->key);
    g_free(m);
}

void ms_vantage_free(ms_vantage_t *v)
{
    if (!v)
        return;
    reader_free(reader_of(v));
    g_ptr_array_set_free_func(v->rounds, round_free);
    g_ptr_array_unref(v->rounds);
    g_array_unref(v->partials);
    g_free(v->name);
    g_free(v->file);
    g_free(v);
}

/* The last of a field's comma-separated occurrences: the innermost header
 * (ZEP's UDP comes before the CoAP datagram's). */
static const char *last_of(const char *field)
{
    const char *c = strrchr(field, ',');

    return c ? c + 1 : field;
}

static gboolean parse_uint(const char *text, guint64 max, guint64 *out)
{
    char *end;
    guint64 v;

    if (!*text)
        return FALSE;
    errno = 0;
    v = g_ascii_strtoull(text, &end, 0);
    if (errno || *end || v > max)
        return FALSE;
    *out = v;
    return TRUE;
}

/* frame.time_epoch: seconds since 1970 (4.0, 4.4); an ISO 8601 UTC time
 * should a tshark print this absolute time as it prints others (4.6's
 * -T fields does for FT_ABSOLUTE_TIME). */
static gboolean parse_time(const char *text, double *t)
{
    char *end;

    *t = g_ascii_strtod(text, &end);
    if (end != text && !*end)
        return TRUE;
    GDateTime *dt = *text ? g_date_time_new_from_iso8601(text, NULL) : NULL;
    if (!dt)
        return FALSE;
    *t = (double)g_date_time_to_unix(dt) + g_date_time_get_microsecond(dt) / 1e6;
    g_date_time_unref(dt);
    return TRUE;
}

/* tshark's hex of a bytes field; NULL when it is not hex. */
static guchar *unhex(const char *hex, gsize *n)
{
    gsize len = strlen(hex);
    guchar *b;

    if (len % 2)
        return NULL;
    b = g_malloc(len / 2 + 1);
    for (gsize i = 0; i < len / 2; i++) {
        int hi = g_ascii_xdigit_value(hex[2 * i]), lo = g_ascii_xdigit_value(hex[2 * i + 1]);
        if (hi < 0 || lo < 0) {
            g_free(b);
            return NULL;
        }
        b[i] = (guchar)(hi << 4 | lo);
    }
    *n = len / 2;
    return b;
}

static frame_info_t *frame_at(reader_t *r, guint n)
{
    if (n >= r->frames->len)
        g_array_set_size(r->frames, n + 1);
    return &g_array_index(r->frames, frame_info_t, n);
}

/* A data frame on a link: the same transmission as the previous frame of
 * that link (a MAC retry: same sequence number, soon after), or a new one. */
static guint transmission_group(reader_t *r, guint16 src, guint16 dst, guint16 seq, double t, gboolean *retry)
{
    char *link = g_strdup_printf("%04x>%04x", src, dst);
    link_last_t *last = g_hash_table_lookup(r->link_last, link);

    *retry = last && last->seq == seq && t - last->time <= RADIO_RETRY_GAP_US / 1e6;
    if (!*retry) {
        if (!last) {
            last = g_new0(link_last_t, 1);
            g_hash_table_insert(r->link_last, link, last);
            link = NULL;
        }
        last->seq = seq;
        last->group = r->group_acked->len;
        gboolean no = FALSE;
        g_array_append_val(r->group_acked, no);
    }
    last->time = t;
    g_free(link);
    return last->group;
}

static char *message_key(char **f, const char *payload)
{
    GChecksum *sum = g_checksum_new(G_CHECKSUM_SHA256);
    char *key;

    g_checksum_update(sum, (const guchar *)payload, strlen(payload));
    key = g_strdup_printf("%s|%s|%s|%s|%.16s", last_of(f[F_IP_SRC]), last_of(f[F_IP_DST]), last_of(f[F_SPORT]),
                          last_of(f[F_DPORT]), g_checksum_get_string(sum));
    g_checksum_free(sum);
    return key;
}

static ms_round_t *new_round(ms_vantage_t *v, reader_t *r, char *key, char **f, const ms_coap_header_t *h,
                             gsize bytes, double t, guint frame)
{
    ms_round_t *m = g_new0(ms_round_t, 1);

    m->key = key;
    g_strlcpy(m->src, last_of(f[F_IP_SRC]), sizeof(m->src));
    g_strlcpy(m->dst, last_of(f[F_IP_DST]), sizeof(m->dst));
    m->mid = h->mid;
    m->type = h->type;
    m->code = h->code;
    g_strlcpy(m->token, h->token, sizeof(m->token));
    g_strlcpy(m->path, h->code >= 1 && h->code < 32 ? h->path : "", sizeof(m->path));
    m->block = h->block;
    m->bytes = (guint)bytes;
    m->first_s = m->last_s = t;
    m->first_frame = frame;
    g_ptr_array_add(v->rounds, m);
    g_hash_table_insert(r->last_round, m->key, m);
    return m;
}

void ms_vantage_feed(ms_vantage_t *v, const char *line)
{
    reader_t *r = reader_of(v);
    char **f = g_strsplit(line, "\t", N_FIELDS + 1);
    guint64 number, u;
    double t;

    if (g_strv_length(f) < N_FIELDS || !parse_uint(f[F_NUMBER], G_MAXUINT32, &number))
        goto out;
    if (!parse_time(f[F_TIME], &t))
        goto out;
    v->frames++;
    frame_at(r, (guint)number)->time = t;
    frame_at(r, (guint)number)->group = G_MAXUINT;
    guint64 src16, dst16, seq;
    gboolean wpan = parse_uint(f[F_SRC16], 0xffff, &src16) && parse_uint(f[F_DST16], 0xffff, &dst16) &&
                    parse_uint(f[F_SEQ], 0xff, &seq);
    gboolean retry = FALSE;
    if (parse_uint(f[F_ACK_TO], G_MAXUINT32, &u) && u < r->frames->len) {
        guint g = g_array_index(r->frames, frame_info_t, u).group;
        if (g < r->group_acked->len)
            g_array_index(r->group_acked, gboolean, g) = TRUE;
        v->radio = TRUE;
    } else if (wpan) {
        frame_at(r, (guint)number)->group = transmission_group(r, (guint16)src16, (guint16)dst16, (guint16)seq, t, &retry);
        v->radio = TRUE;
    }
    guint64 size;
    if (wpan && !retry && !*f[F_FRAG_OFFSET] && parse_uint(last_of(f[F_FRAG_SIZE]), 0xffff, &size)) {
        ms_partial_t p = { (guint16)src16, (guint16)dst16, (guint)size, t, (guint)number };
        g_array_append_val(r->frag1s, p);
        g_array_append_val(r->frag1_group, frame_at(r, (guint)number)->group);
    }
    gsize bytes = 0;
    guchar *payload = *last_of(f[F_PAYLOAD]) ? unhex(last_of(f[F_PAYLOAD]), &bytes) : NULL;
    ms_coap_header_t h;
    gboolean coap = payload && ms_coap_header_parse(payload, bytes, &h);
    g_free(payload);
    if (!coap)
        goto out;

    char *key = message_key(f, last_of(f[F_PAYLOAD]));
    ms_round_t *m = g_hash_table_lookup(r->last_round, key);
    guint16 s16 = wpan ? (guint16)src16 : 0xffff, d16 = wpan ? (guint16)dst16 : 0xffff;
    /* The copy's frames: its fragments, or the frame itself. */
    GArray *frags = g_array_new(FALSE, FALSE, sizeof(guint));
    char **fr = g_strsplit(f[F_FRAGMENTS], ",", -1);
    for (guint i = 0; fr[i]; i++)
        if (parse_uint(fr[i], number, &u))
            g_array_append_val(frags, (guint){ (guint)u });
    g_strfreev(fr);
    if (!frags->len)
        g_array_append_val(frags, (guint){ (guint)number });
    double first = t;
    for (guint i = 0; i < frags->len; i++)
        first = MIN(first, frame_at(r, g_array_index(frags, guint, i))->time);

    int link = -1;
    for (guint i = 0; m && wpan && i < m->n_copies; i++)
        if (m->copies[i].src16 == s16 && m->copies[i].dst16 == d16)
            link = (int)i;
    if (m && wpan && link >= 0 && retry) {
        m->mac_retries++;          /* the same copy sent again */
        g_free(key);
        g_array_unref(frags);
        goto out;
    }
    if (!m || !wpan || link >= 0 || t - m->last_s > RADIO_HOP_WINDOW_US / 1e6 || m->n_copies == MS_ROUND_MAX_COPIES) {
        m = new_round(v, r, key, f, &h, bytes, first, (guint)number);
    } else {
        g_free(key);
        m->first_s = MIN(m->first_s, first);
    }
    ms_copy_t *c = &m->copies[m->n_copies++];
    c->src16 = s16;
    c->dst16 = d16;
    c->complete_s = t;
    c->frame = (guint)number;
    m->last_s = MAX(m->last_s, t);
    if (wpan) {
        g_ptr_array_add(r->copy_fragments, frags);
        g_ptr_array_add(r->copy_of, c);
    } else {
        g_array_unref(frags);
    }
out:
    g_strfreev(f);
}

void ms_vantage_finish(ms_vantage_t *v)
{
    reader_t *r = reader_of(v);

    /* ACKs come after their frames: a copy is acknowledged once the whole capture is read. */
    for (guint i = 0; i < r->copy_fragments->len; i++) {
        GArray *frags = g_ptr_array_index(r->copy_fragments, i);
        ms_copy_t *c = g_ptr_array_index(r->copy_of, i);
        gboolean all = TRUE;
        for (guint k = 0; k < frags->len; k++) {
            guint g = frame_at(r, g_array_index(frags, guint, k))->group;
            all = all && g < r->group_acked->len && g_array_index(r->group_acked, gboolean, g);
            g_hash_table_add(r->groups_used, GUINT_TO_POINTER(g));
        }
        c->acked = all;
    }
    /* First fragments of no complete copy: datagrams that died on the air. */
    for (guint i = 0; i < r->frag1s->len; i++)
        if (!g_hash_table_contains(r->groups_used, GUINT_TO_POINTER(g_array_index(r->frag1_group, guint, i))))
            g_array_append_val(v->partials, g_array_index(r->frag1s, ms_partial_t, i));
}

static void vantage_line(void *data, const char *line)
{
    ms_vantage_feed(data, line);
}

static void vantage_finish(void *data)
{
    ms_vantage_finish(data);
}

/* Stock fields only, so no plugin to miss and no option of its to refuse:
 * a tshark that failed could not read the file. */
static ms_run_status_t vantage_status(const ms_tshark_t *t, void *data, const ms_tshark_exit_t *x, char **message)
{
    const ms_vantage_t *v = data;

    (void)t;
    if (x->term_sig) {
        *message = g_strdup_printf("%s: tshark was stopped by signal %d (%s) before it finished reading it", v->file,
                                   x->term_sig, g_strsignal(x->term_sig));
        return RUN_TSHARK_ERROR;
    }
    if (x->code != 0) {
        /* tshark's own words: cannot open, not a capture, truncated. */
        *message = g_strdup_printf("%s: %s", v->file, *x->errors ? x->errors : "tshark could not read it");
        return RUN_INPUT_ERROR;
    }
    return RUN_OK;
}

ms_run_status_t ms_vantage_read(const ms_tshark_t *t, ms_vantage_t *v, char **message)
{
    static const char *const prefs[] = { "wpan.802154_ack_tracking:TRUE", NULL };
    const ms_tshark_reader_t r = { vantage_line, vantage_finish, vantage_status, v };
    GPtrArray *argv = ms_tshark_fields_argv(t, v->file, prefs, field_names);
    ms_run_status_t status = ms_tshark_stream(t, argv, &r, NULL, message);

    g_ptr_array_free(argv, TRUE);
    return status;
}
