/* test_live_input.c: what --live reads before its view: the framer of
 * pcap and pcapng streams (whole records only, the header a new tshark
 * needs, a stop at a frame count) on streams built here, and the reader of
 * the plugin's E records against their writer.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <string.h>
#include <glib.h>
#include "capture_framer.h"
#include "event.h"

static void put32(GByteArray *b, guint32 v, gboolean big)
{
    guint32 x = big ? GUINT32_TO_BE(v) : GUINT32_TO_LE(v);
    g_byte_array_append(b, (const guint8 *)&x, 4);
}

/* A pcap of n records of len bytes each; *header_len, *record_len. */
static GByteArray *pcap(guint n, guint len, gboolean big)
{
    GByteArray *b = g_byte_array_new();

    put32(b, 0xa1b2c3d4u, big);
    for (guint i = 0; i < 5; i++)
        put32(b, i == 4 ? 195 : (i == 0 ? 0x00040002u : 0), big);
    for (guint i = 0; i < n; i++) {
        put32(b, 1000 + i, big);
        put32(b, 0, big);
        put32(b, len, big);
        put32(b, len, big);
        for (guint k = 0; k < len; k++)
            g_byte_array_append(b, (const guint8 *)"x", 1);
    }
    return b;
}

static void test_pcap(gconstpointer big_p)
{
    gboolean big = GPOINTER_TO_INT(big_p);
    GByteArray *b = pcap(3, 10, big);
    ms_framer_t f = { 0 };

    g_assert_cmpuint(b->len, ==, 24 + 3 * 26);
    /* Byte by byte: each time only up to the last whole record. */
    for (guint have = 0; have <= b->len; have++) {
        ms_framer_t g = { 0 };
        gsize whole = ms_framer_whole(&g, b->data, have, 0);
        gsize want = have < 24 ? 0 : 24 + (have - 24) / 26 * 26;
        g_assert_cmpuint(whole, ==, want);
        ms_framer_clear(&g);
    }
    g_assert_cmpuint(ms_framer_whole(&f, b->data, b->len, 0), ==, b->len);
    g_assert_cmpint(f.kind, ==, FRAMER_PCAP);
    g_assert_cmpuint(f.frames, ==, 3);
    g_assert_cmpuint(f.header->len, ==, 24);
    g_assert_cmpmem(f.header->data, 24, b->data, 24);
    ms_framer_clear(&f);
    /* A stop at 2 frames hands on the header and two records. */
    g_assert_cmpuint(ms_framer_whole(&f, b->data, b->len, 2), ==, 24 + 2 * 26);
    g_assert_cmpuint(f.frames, ==, 2);
    ms_framer_clear(&f);
    g_byte_array_free(b, TRUE);
}

static void block(GByteArray *b, guint32 type, guint body, gboolean big)
{
    put32(b, type, big);
    put32(b, 12 + body, big);
    for (guint k = 0; k < body; k++)
        g_byte_array_append(b, (const guint8 *)"\0", 1);
    put32(b, 12 + body, big);
}

static void shb(GByteArray *b, gboolean big)
{
    put32(b, 0x0a0d0d0au, big);
    put32(b, 28, big);
    put32(b, 0x1a2b3c4du, big);
    put32(b, 0x00000001u, big);       /* version 1.0 */
    put32(b, 0xffffffffu, big);       /* section length: unknown */
    put32(b, 0xffffffffu, big);
    put32(b, 28, big);
}

static void test_pcapng(gconstpointer big_p)
{
    gboolean big = GPOINTER_TO_INT(big_p);
    GByteArray *b = g_byte_array_new();
    ms_framer_t f = { 0 };

    shb(b, big);
    block(b, 1, 8, big);              /* IDB */
    guint header = b->len;
    block(b, 6, 24, big);             /* EPB */
    block(b, 6, 24, big);
    guint two = b->len;
    block(b, 1, 8, big);              /* a second IDB, after packets */
    block(b, 3, 8, big);              /* SPB */
    g_assert_cmpuint(ms_framer_whole(&f, b->data, b->len - 1, 0), ==, b->len - 20);
    g_assert_cmpuint(f.frames, ==, 2);
    ms_framer_clear(&f);
    g_assert_cmpuint(ms_framer_whole(&f, b->data, b->len, 0), ==, b->len);
    g_assert_cmpint(f.kind, ==, FRAMER_PCAPNG);
    g_assert_cmpuint(f.frames, ==, 3);
    /* The header: the SHB and both IDBs, not the packets. */
    g_assert_cmpuint(f.header->len, ==, header + 20);
    g_assert_cmpmem(f.header->data, header, b->data, header);
    g_assert_cmpmem(f.header->data + header, 20, b->data + two, 20);
    /* A new section replaces the old one's blocks. */
    GByteArray *c = g_byte_array_new();
    shb(c, big);
    g_assert_cmpuint(ms_framer_whole(&f, c->data, c->len, 0), ==, c->len);
    g_assert_cmpuint(f.header->len, ==, 28);
    ms_framer_clear(&f);
    g_byte_array_free(c, TRUE);
    g_byte_array_free(b, TRUE);
}

static void test_opaque(void)
{
    static const guint8 gz[] = { 0x1f, 0x8b, 0x08, 0x00, 1, 2, 3 };
    ms_framer_t f = { 0 };

    g_assert_cmpuint(ms_framer_whole(&f, gz, 3, 0), ==, 0);     /* not yet known */
    g_assert_cmpuint(ms_framer_whole(&f, gz, sizeof gz, 0), ==, sizeof gz);
    g_assert_cmpint(f.kind, ==, FRAMER_OPAQUE);
    g_assert_null(f.header);
    ms_framer_clear(&f);
}

static char **lines_of(GString *s)
{
    if (s->len && s->str[s->len - 1] == '\n')
        g_string_truncate(s, s->len - 1);
    return g_strsplit(s->str, "\n", -1);
}

static void test_events_roundtrip(void)
{
    GString *out = g_string_new(NULL);
    meter_event_record_t in = { .event = "stall", .frame = 454, .ts_us = 1772359220723357, .transfer = 1,
                                .meter = "2001:db8::1", .path = "/meter/\this", .kind = "block1", .offset = 512,
                                .block_size = 256, .bytes = 686, .size_hint = -1, .code = "POST",
                                .stall_s = 17.091133, .image = FALSE, .verified = FALSE };
    meter_event_record_t e;
    ms_event_reader_t r = { 0 };

    g_string_append(out, "Running as user \"root\"\n");
    meter_event_write_header(out);
    meter_record_write(out, &meter_event_schema, &in);
    char **lines = lines_of(out);
    guint got = 0;
    for (guint i = 0; lines[i]; i++)
        if (ms_event_feed(&r, lines[i], &e)) {
            got++;
            g_assert_cmpstr(e.event, ==, "stall");
            g_assert_cmpuint(e.frame, ==, 454);
            g_assert_cmpint(e.ts_us, ==, in.ts_us);
            g_assert_cmpstr(e.path, ==, "/meter/\\this");   /* escaped by the writer, one cell */
            g_assert_cmpfloat_with_epsilon(e.stall_s, 17.091133, 1e-9);
            g_assert_cmpint(e.size_hint, ==, -1);
            meter_record_clear(&meter_event_schema, &e);
        }
    g_assert_cmpuint(got, ==, 1);
    g_assert_null(r.format_error);
    /* The TSV that follows is no event. */
    g_assert_false(ms_event_feed(&r, "# meterscope-ota 2", &e));
    g_assert_false(ms_event_feed(&r, "T\t1\t2", &e));
    /* A bad value is a format error, and the reader reads no more. */
    char *bad = g_strdup(lines[3]);
    char *at = strstr(bad, "\t454\t");
    memcpy(at, "\tnan", 4);
    g_assert_false(ms_event_feed(&r, bad, &e));
    g_assert_nonnull(r.format_error);
    g_assert_nonnull(strstr(r.format_error, "column frame"));
    g_assert_false(ms_event_feed(&r, lines[3], &e));
    g_free(bad);
    ms_event_reader_clear(&r);
    /* Another version's header: noted, its records not read. */
    g_assert_false(ms_event_feed(&r, "# meterscope-events 2", &e));
    g_assert_false(ms_event_feed(&r, lines[2], &e));
    g_assert_false(ms_event_feed(&r, lines[3], &e));
    g_assert_cmpstr(r.other_version, ==, "meterscope-events 2");
    ms_event_reader_clear(&r);
    /* An E record before its #E line. */
    g_assert_false(ms_event_feed(&r, lines[1], &e));
    g_assert_false(ms_event_feed(&r, lines[3], &e));
    g_assert_nonnull(r.format_error);
    ms_event_reader_clear(&r);
    g_strfreev(lines);
    g_string_free(out, TRUE);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_data_func("/framer/pcap-le", GINT_TO_POINTER(FALSE), test_pcap);
    g_test_add_data_func("/framer/pcap-be", GINT_TO_POINTER(TRUE), test_pcap);
    g_test_add_data_func("/framer/pcapng-le", GINT_TO_POINTER(FALSE), test_pcapng);
    g_test_add_data_func("/framer/pcapng-be", GINT_TO_POINTER(TRUE), test_pcapng);
    g_test_add_func("/framer/opaque", test_opaque);
    g_test_add_func("/events/roundtrip", test_events_roundtrip);
    return g_test_run();
}
