/* test_senml.c: unit tests of plugin/core/senml.c (SenML-CBOR parsing and RFC
 * 8428 resolution) on tvb_new_real_data() buffers, without tshark.
 *
 * Packs are the RFC 8428 section 6 CBOR example, byte for byte, and packs
 * built here with a tiny CBOR writer; every malformation class senml.h
 * lists has a case, and truncations / bit flips / hostile lengths must end
 * as problems, never as a crash or a hang.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#undef G_DISABLE_ASSERT
#include <math.h>
#include <string.h>

#include <glib.h>
#include <epan/exceptions.h>
#include <epan/tvbuff.h>
#include <epan/wmem_scopes.h>

#include "senml.h"
#include "cbor_item.h"

static wmem_allocator_t *alloc;

/* ---- a tiny CBOR writer ------------------------------------------------ */

static void put_head(GByteArray *b, guint major, guint64 v)
{
    guint8 m = (guint8)(major << 5);

    if (v < 24) {
        guint8 x = m | (guint8)v;
        g_byte_array_append(b, &x, 1);
    } else if (v <= 0xff) {
        guint8 x[2] = { m | 24, (guint8)v };
        g_byte_array_append(b, x, 2);
    } else if (v <= 0xffff) {
        guint8 x[3] = { m | 25, (guint8)(v >> 8), (guint8)v };
        g_byte_array_append(b, x, 3);
    } else if (v <= 0xffffffffu) {
        guint8 x[5] = { m | 26, (guint8)(v >> 24), (guint8)(v >> 16), (guint8)(v >> 8), (guint8)v };
        g_byte_array_append(b, x, 5);
    } else {
        guint8 x[9] = { m | 27 };
        for (int i = 0; i < 8; i++)
            x[1 + i] = (guint8)(v >> (56 - 8 * i));
        g_byte_array_append(b, x, 9);
    }
}

static void put_int(GByteArray *b, gint64 v)
{
    if (v >= 0)
        put_head(b, 0, (guint64)v);
    else
        put_head(b, 1, (guint64)(-1 - v));
}

static void put_text(GByteArray *b, const char *s)
{
    put_head(b, 3, strlen(s));
    g_byte_array_append(b, (const guint8 *)s, (guint)strlen(s));
}

static void put_bytes(GByteArray *b, const guint8 *d, guint n)
{
    put_head(b, 2, n);
    g_byte_array_append(b, d, n);
}

static void put_double(GByteArray *b, double d)
{
    guint64 bits;
    guint8 x[9] = { 0xfb };

    memcpy(&bits, &d, 8);
    for (int i = 0; i < 8; i++)
        x[1 + i] = (guint8)(bits >> (56 - 8 * i));
    g_byte_array_append(b, x, 9);
}

static void put_raw(GByteArray *b, const char *hex)
{
    while (hex[0] && hex[1]) {
        guint8 x = (guint8)((g_ascii_xdigit_value(hex[0]) << 4) | g_ascii_xdigit_value(hex[1]));
        g_byte_array_append(b, &x, 1);
        hex += 2;
        while (*hex == ' ')
            hex++;
    }
}

#define put_array(b, n) put_head((b), 4, (n))
#define put_map(b, n)   put_head((b), 5, (n))

/* Parse the bytes; the pack lives in alloc, the tvb is freed. */
static senml_pack_t *parse_bytes(const guint8 *d, guint len, guint max_records)
{
    tvbuff_t *tvb = tvb_new_real_data(d, len, len);
    senml_pack_t *p = senml_parse(alloc, tvb, 0, max_records);

    tvb_free(tvb);
    return p;
}

static senml_pack_t *parse(GByteArray *b)
{
    return parse_bytes(b->data, b->len, 0);
}

static guint count(const senml_pack_t *p, senml_problem_kind_t k)
{
    return p->n_problems_by_kind[k];
}

static const senml_problem_t *first_problem(const senml_pack_t *p, senml_problem_kind_t k)
{
    for (guint i = 0; i < senml_pack_n_problems(p); i++) {
        if (senml_pack_problem(p, i)->kind == k)
            return senml_pack_problem(p, i);
    }
    return NULL;
}

static void dump_problems(const senml_pack_t *p)
{
    for (guint i = 0; i < senml_pack_n_problems(p); i++) {
        const senml_problem_t *q = senml_pack_problem(p, i);
        g_test_message("problem %s rec %d @%d+%d: %s", senml_problem_name(q->kind), q->record, q->offset,
                       q->length, q->detail);
    }
}

/* ---- RFC 8428 section 6: the CBOR example (the section 5.1.2 data) ---- */

static const char rfc8428_s6[] =
    "82 a4 21 78 1b 75 72 6e 3a 64 65 76 3a 6f 77 3a"
    "31 30 65 32 30 37 33 61 30 31 30 38 30 30 36 33"
    "01 63 43 65 6c 06 fb 41 d3 03 a1 5b 00 10 62 02"
    "fb 40 37 80 00 00 00 00 00 a3 01 63 43 65 6c 06"
    "fb 41 d3 03 a1 5e c0 00 00 02 fb 40 37 99 99 99"
    "99 99 9a";

static GByteArray *rfc_example(void)
{
    GByteArray *b = g_byte_array_new();
    put_raw(b, rfc8428_s6);
    return b;
}

static void test_rfc8428_example(void)
{
    GByteArray *b = rfc_example();
    senml_pack_t *p;
    const senml_record_t *r;

    g_assert_cmpuint(b->len, ==, 0x53);
    p = parse(b);
    dump_problems(p);
    g_assert_true(p->is_array);
    g_assert_true(p->complete);
    g_assert_cmpuint(senml_pack_n_problems(p), ==, 0);
    g_assert_cmpuint(senml_pack_n_records(p), ==, 2);
    g_assert_cmpint(p->end, ==, 0x53);

    r = senml_pack_record(p, 0);
    g_assert_cmpstr(r->name, ==, "urn:dev:ow:10e2073a01080063");
    g_assert_cmpstr(r->unit, ==, "Cel");
    g_assert_cmpint(r->value_kind, ==, SENML_VALUE_NUMBER);
    g_assert_cmpfloat(r->value, ==, 23.5);
    g_assert_cmpfloat(r->time, ==, 1276020076.001);
    g_assert_true(r->time_absolute);
    g_assert_cmpint(r->offset, ==, 1);
    g_assert_cmpint(r->length, ==, 0x39 - 1);
    /* positions of the items, for expert infos */
    g_assert_cmpint(senml_record_field(r, SENML_BN)->key_offset, ==, 2);
    g_assert_cmpint(senml_record_field(r, SENML_BN)->offset, ==, 3);
    g_assert_cmpint(senml_record_field(r, SENML_BN)->length, ==, 2 + 27);

    r = senml_pack_record(p, 1);
    g_assert_cmpstr(r->name, ==, "urn:dev:ow:10e2073a01080063");   /* bn carried over */
    g_assert_cmpstr(r->unit, ==, "Cel");
    g_assert_cmpfloat(r->value, ==, 23.6);
    g_assert_cmpfloat(r->time, ==, 1276020091.0);
    g_assert_true(r->time_absolute);
    g_assert_cmpuint(r->version, ==, 10);
    g_assert_cmpuint(p->n_absolute, ==, 2);
    g_assert_cmpfloat(p->time_min, ==, 1276020076.001);
    g_assert_cmpfloat(p->time_max, ==, 1276020091.0);
    g_byte_array_free(b, TRUE);
}

/* ---- base values --------------------------------------------------------- */

static void test_base_resolution(void)
{
    GByteArray *b = g_byte_array_new();
    senml_pack_t *p;
    const senml_record_t *r;

    put_array(b, 4);
    put_map(b, 8);
    put_int(b, SENML_BN); put_text(b, "urn:dev:mac:0024befffe804ff1:");
    put_int(b, SENML_BT); put_int(b, 1772337600);
    put_int(b, SENML_BU); put_text(b, "Wh");
    put_int(b, SENML_BV); put_int(b, 12000);
    put_int(b, SENML_BS); put_int(b, 100);
    put_int(b, SENML_BVER); put_int(b, 10);
    put_int(b, SENML_N); put_text(b, "energy");
    put_int(b, SENML_V); put_double(b, 39.25);
    /* t absent: bt alone */
    put_map(b, 3);
    put_int(b, SENML_N); put_text(b, "energy");
    put_int(b, SENML_V); put_raw(b, "f9 3e 00");          /* half 1.5 */
    put_int(b, SENML_T); put_int(b, 900);
    put_map(b, 6);
    put_int(b, SENML_BN); put_text(b, "other:");
    put_int(b, SENML_N); put_text(b, "x");
    put_int(b, SENML_U); put_text(b, "l");
    put_int(b, SENML_V); put_int(b, -3);
    put_int(b, SENML_S); put_raw(b, "fa 40 a0 00 00");    /* single 5.0 */
    put_int(b, SENML_T); put_int(b, -60);
    put_map(b, 2);                                         /* bn alone is the name */
    put_int(b, SENML_VB); put_raw(b, "f5");
    put_int(b, SENML_UT); put_int(b, 300);

    p = parse(b);
    dump_problems(p);
    g_assert_cmpuint(senml_pack_n_problems(p), ==, 0);
    g_assert_cmpuint(senml_pack_n_records(p), ==, 4);

    r = senml_pack_record(p, 0);
    g_assert_cmpstr(r->name, ==, "urn:dev:mac:0024befffe804ff1:energy");
    g_assert_cmpfloat(r->time, ==, 1772337600.0);
    g_assert_true(r->time_given);
    g_assert_true(r->time_absolute);
    g_assert_cmpfloat(r->value, ==, 12039.25);
    g_assert_cmpstr(r->unit, ==, "Wh");
    g_assert_false(r->has_sum);               /* bs alone is no sum */
    g_assert_false(r->base_only);

    r = senml_pack_record(p, 1);
    g_assert_cmpstr(r->name, ==, "urn:dev:mac:0024befffe804ff1:energy");
    g_assert_cmpfloat(r->time, ==, 1772338500.0);
    g_assert_cmpfloat(r->value, ==, 12001.5);
    g_assert_cmpstr(r->unit, ==, "Wh");       /* bu */
    g_assert_true(r->has_base_value);

    r = senml_pack_record(p, 2);
    g_assert_cmpstr(r->name, ==, "other:x");  /* bn replaced, not appended */
    g_assert_cmpstr(r->unit, ==, "l");        /* u over bu */
    g_assert_cmpfloat(r->value, ==, 11997.0);
    g_assert_true(r->has_sum);
    g_assert_cmpfloat(r->sum, ==, 105.0);
    g_assert_cmpfloat(r->time, ==, 1772337540.0);
    g_assert_true(r->time_absolute);

    r = senml_pack_record(p, 3);
    g_assert_cmpstr(r->name, ==, "other:");
    g_assert_cmpint(r->value_kind, ==, SENML_VALUE_BOOL);
    g_assert_true(r->boolean);
    g_assert_true(r->has_update_time);
    g_assert_cmpfloat(r->update_time, ==, 300.0);
    g_assert_cmpfloat(r->time, ==, 1772337600.0);
    g_assert_cmpstr(r->unit, ==, "Wh");
    g_byte_array_free(b, TRUE);
}

/* A record of base values only carries no measurement: no "no value". */
static void test_base_only_record(void)
{
    GByteArray *b = g_byte_array_new();
    senml_pack_t *p;

    put_array(b, 2);
    put_map(b, 2);
    put_int(b, SENML_BN); put_text(b, "urn:dev:mac:1:");
    put_int(b, SENML_BT); put_int(b, 1772337600);
    put_map(b, 2);
    put_int(b, SENML_N); put_text(b, "");              /* "" (wscbor 4.0 asserts on it) */
    put_int(b, SENML_V); put_int(b, 7);
    p = parse(b);
    dump_problems(p);
    g_assert_cmpuint(senml_pack_n_problems(p), ==, 0);
    g_assert_true(senml_pack_record(p, 0)->base_only);
    g_assert_cmpstr(senml_pack_record(p, 1)->name, ==, "urn:dev:mac:1:");
    g_assert_cmpfloat(senml_pack_record(p, 1)->time, ==, 1772337600.0);
    g_byte_array_free(b, TRUE);
}

/* ---- time: RFC 8428 section 4.5.3 ----------------------------------------- */

static void test_relative_time(void)
{
    GByteArray *b = g_byte_array_new();
    senml_pack_t *p;
    const senml_record_t *r;

    put_array(b, 6);
    put_map(b, 3); put_int(b, SENML_N); put_text(b, "a"); put_int(b, SENML_V); put_int(b, 1);
    put_int(b, SENML_T); put_int(b, -5);
    put_map(b, 2); put_int(b, SENML_N); put_text(b, "b"); put_int(b, SENML_V); put_int(b, 2);
    put_map(b, 4); put_int(b, SENML_BT); put_int(b, 100); put_int(b, SENML_N); put_text(b, "c");
    put_int(b, SENML_V); put_int(b, 3); put_int(b, SENML_T); put_int(b, 10);
    /* bt 100 + t (2^28 - 101) = 2^28 - 1: still relative */
    put_map(b, 3); put_int(b, SENML_N); put_text(b, "d"); put_int(b, SENML_V); put_int(b, 4);
    put_int(b, SENML_T); put_int(b, 268435456 - 101);
    /* bt 100 + t (2^28 - 100) = 2^28: absolute */
    put_map(b, 3); put_int(b, SENML_N); put_text(b, "e"); put_int(b, SENML_V); put_int(b, 5);
    put_int(b, SENML_T); put_int(b, 268435456 - 100);
    /* an absolute bt with a negative t stays absolute */
    put_map(b, 4); put_int(b, SENML_BT); put_double(b, 1772337600.5); put_int(b, SENML_N); put_text(b, "f");
    put_int(b, SENML_V); put_int(b, 6); put_int(b, SENML_T); put_int(b, -3600);

    p = parse(b);
    dump_problems(p);
    g_assert_cmpuint(senml_pack_n_problems(p), ==, 0);
    g_assert_cmpuint(senml_pack_n_records(p), ==, 6);
    r = senml_pack_record(p, 0);
    g_assert_true(r->time_given);
    g_assert_false(r->time_absolute);
    g_assert_cmpfloat(r->time, ==, -5.0);
    r = senml_pack_record(p, 1);
    g_assert_false(r->time_given);            /* no bt, no t: "now" */
    g_assert_false(r->time_absolute);
    g_assert_cmpfloat(r->time, ==, 0.0);
    r = senml_pack_record(p, 2);
    g_assert_false(r->time_absolute);
    g_assert_cmpfloat(r->time, ==, 110.0);
    r = senml_pack_record(p, 3);
    g_assert_false(r->time_absolute);
    g_assert_cmpfloat(r->time, ==, 268435455.0);
    r = senml_pack_record(p, 4);
    g_assert_true(r->time_absolute);
    g_assert_cmpfloat(r->time, ==, 268435456.0);
    r = senml_pack_record(p, 5);
    g_assert_true(r->time_absolute);
    g_assert_cmpfloat(r->time, ==, 1772334000.5);
    g_assert_cmpuint(p->n_absolute, ==, 2);
    g_assert_cmpfloat(p->time_min, ==, 268435456.0);
    g_assert_cmpfloat(p->time_max, ==, 1772334000.5);
    g_byte_array_free(b, TRUE);
}

/* ---- numbers and value variants -------------------------------------------- */

static void test_half(void)
{
    g_assert_cmpfloat(cbor_half_to_double(0x3c00), ==, 1.0);
    g_assert_cmpfloat(cbor_half_to_double(0xc000), ==, -2.0);
    g_assert_cmpfloat(cbor_half_to_double(0x7bff), ==, 65504.0);
    g_assert_cmpfloat(cbor_half_to_double(0x0001), ==, ldexp(1.0, -24));
    g_assert_cmpfloat(cbor_half_to_double(0x0400), ==, ldexp(1.0, -14));
    g_assert_true(isinf(cbor_half_to_double(0x7c00)));
    g_assert_true(isinf(cbor_half_to_double(0xfc00)) && cbor_half_to_double(0xfc00) < 0);
    g_assert_true(isnan(cbor_half_to_double(0x7e00)));
    g_assert_cmpfloat(cbor_half_to_double(0x8000), ==, 0.0);
}

static void test_numbers(void)
{
    static const struct { const char *hex; double v; gboolean is_int; } cases[] = {
        { "00", 0, TRUE }, { "17", 23, TRUE }, { "18 18", 24, TRUE }, { "19 03 e8", 1000, TRUE },
        { "1a 00 0f 42 40", 1000000, TRUE }, { "1b 00 00 00 e8 d4 a5 10 00", 1e12, TRUE },
        { "20", -1, TRUE }, { "39 03 e7", -1000, TRUE }, { "3b 00 00 00 e8 d4 a5 0f ff", -1e12, TRUE },
        { "f9 3c 00", 1.0, FALSE }, { "f9 c4 00", -4.0, FALSE }, { "fa 47 c3 50 00", 100000.0, FALSE },
        { "fb 3f f1 99 99 99 99 99 9a", 1.1, FALSE },
        { "1b ff ff ff ff ff ff ff ff", 18446744073709551615.0, TRUE },
        { "3b ff ff ff ff ff ff ff ff", -18446744073709551616.0, TRUE },
    };

    for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
        GByteArray *b = g_byte_array_new();
        senml_pack_t *p;
        const senml_record_t *r;

        put_array(b, 1);
        put_map(b, 2);
        put_int(b, SENML_N); put_text(b, "x");
        put_int(b, SENML_V); put_raw(b, cases[i].hex);
        p = parse(b);
        dump_problems(p);
        g_assert_cmpuint(senml_pack_n_problems(p), ==, 0);
        r = senml_pack_record(p, 0);
        g_assert_cmpint(r->value_kind, ==, SENML_VALUE_NUMBER);
        g_assert_cmpfloat(r->value, ==, cases[i].v);
        g_assert_cmpint(senml_record_field(r, SENML_V)->num_is_int, ==, cases[i].is_int);
        g_byte_array_free(b, TRUE);
    }
}

static void test_value_variants(void)
{
    static const guint8 blob[] = { 0xde, 0xad, 0x00, 0xbe, 0xef };
    GByteArray *b = g_byte_array_new();
    senml_pack_t *p;
    const senml_record_t *r;

    put_array(b, 5);
    put_map(b, 2); put_int(b, SENML_N); put_text(b, "s"); put_int(b, SENML_VS); put_text(b, "open");
    put_map(b, 2); put_int(b, SENML_N); put_text(b, "b"); put_int(b, SENML_VB); put_raw(b, "f4");
    put_map(b, 2); put_int(b, SENML_N); put_text(b, "d"); put_int(b, SENML_VD); put_bytes(b, blob, sizeof blob);
    put_map(b, 2); put_int(b, SENML_N); put_text(b, "sum"); put_int(b, SENML_S); put_int(b, 42);
    /* indefinite-length map, text and byte strings */
    put_raw(b, "bf 00 7f 61 69 62 6e 64 ff 08 5f 41 01 42 02 03 ff ff");

    p = parse(b);
    dump_problems(p);
    g_assert_cmpuint(senml_pack_n_problems(p), ==, 0);
    g_assert_cmpuint(senml_pack_n_records(p), ==, 5);
    r = senml_pack_record(p, 0);
    g_assert_cmpint(r->value_kind, ==, SENML_VALUE_STRING);
    g_assert_cmpstr(r->string, ==, "open");
    r = senml_pack_record(p, 1);
    g_assert_cmpint(r->value_kind, ==, SENML_VALUE_BOOL);
    g_assert_false(r->boolean);
    r = senml_pack_record(p, 2);
    g_assert_cmpint(r->value_kind, ==, SENML_VALUE_DATA);
    g_assert_cmpuint(r->data_len, ==, sizeof blob);
    g_assert_cmpmem(r->data, r->data_len, blob, sizeof blob);
    r = senml_pack_record(p, 3);
    g_assert_cmpint(r->value_kind, ==, SENML_VALUE_NONE);
    g_assert_true(r->has_sum);
    g_assert_cmpfloat(r->sum, ==, 42.0);
    r = senml_pack_record(p, 4);
    g_assert_cmpstr(r->name, ==, "ind");
    g_assert_cmpint(r->value_kind, ==, SENML_VALUE_DATA);
    g_assert_cmpuint(r->data_len, ==, 3);
    g_assert_cmpmem(r->data, 3, "\x01\x02\x03", 3);
    g_assert_cmpint(r->offset + r->length, ==, (gint)b->len - 0);
    g_byte_array_free(b, TRUE);
}

static void test_indefinite_pack(void)
{
    GByteArray *b = g_byte_array_new();
    senml_pack_t *p;

    put_raw(b, "9f a2 00 61 61 02 01 a2 00 61 62 02 02 ff");
    p = parse(b);
    dump_problems(p);
    g_assert_true(p->indefinite);
    g_assert_true(p->complete);
    g_assert_cmpuint(senml_pack_n_problems(p), ==, 0);
    g_assert_cmpuint(senml_pack_n_records(p), ==, 2);
    g_assert_cmpstr(senml_pack_record(p, 1)->name, ==, "b");
    g_assert_cmpint(p->end, ==, (gint)b->len);
    g_byte_array_free(b, TRUE);
}

/* ---- malformations ----------------------------------------------------------- */

/* One malformed pack given as hex, the problem expected, how many of them,
 * the record it belongs to (-1: the pack) and its offset (-1: not checked). */
typedef struct {
    const char *what;
    const char *hex;
    senml_problem_kind_t kind;
    guint n;
    gint record;
    gint offset;
    guint n_records;
} malformed_t;

static const malformed_t malformed[] = {
    { "map, not array", "a1 00 61 61", SENML_PROB_NOT_ARRAY, 1, -1, 0, 0 },
    { "text, not array", "63 61 62 63", SENML_PROB_NOT_ARRAY, 1, -1, 0, 0 },
    { "no data", "", SENML_PROB_NOT_ARRAY, 1, -1, 0, 0 },
    { "empty pack", "80", SENML_PROB_EMPTY_PACK, 1, -1, 0, 0 },
    { "empty indefinite pack", "9f ff", SENML_PROB_EMPTY_PACK, 1, -1, 0, 0 },
    { "record not a map", "82 01 a2 00 61 61 02 01", SENML_PROB_NOT_MAP, 1, 0, 1, 2 },
    { "record an array", "82 82 01 02 a2 00 61 61 02 01", SENML_PROB_NOT_MAP, 1, 0, 1, 2 },
    { "missing name", "81 a1 02 01", SENML_PROB_MISSING_NAME, 1, 0, 1, 1 },
    { "n not text", "81 a2 00 05 02 01", SENML_PROB_WRONG_TYPE, 1, 0, 3, 1 },
    { "v not a number", "81 a2 00 61 61 02 61 78", SENML_PROB_WRONG_TYPE, 1, 0, 6, 1 },
    { "v null", "81 a2 00 61 61 02 f6", SENML_PROB_WRONG_TYPE, 1, 0, 6, 1 },
    { "vb not bool", "81 a2 00 61 61 04 01", SENML_PROB_WRONG_TYPE, 1, 0, 6, 1 },
    { "vd text", "81 a2 00 61 61 08 61 78", SENML_PROB_WRONG_TYPE, 1, 0, 6, 1 },
    { "bver negative", "81 a3 20 20 00 61 61 02 01", SENML_PROB_WRONG_TYPE, 1, 0, 3, 1 },
    { "t a map", "81 a3 00 61 61 02 01 06 a1 01 02", SENML_PROB_WRONG_TYPE, 1, 0, 8, 1 },
    { "bn number", "81 a3 21 01 00 61 61 02 01", SENML_PROB_WRONG_TYPE, 1, 0, 3, 1 },
    { "label an array", "81 a3 81 01 02 00 61 61 02 01", SENML_PROB_WRONG_TYPE, 1, 0, 2, 1 },
    { "unknown int label", "81 a3 00 61 61 02 01 18 2a 00", SENML_PROB_UNKNOWN_LABEL, 1, 0, 7, 1 },
    { "unknown text labels", "81 a4 00 61 61 02 01 63 66 6f 6f 01 61 6e 02", SENML_PROB_UNKNOWN_LABEL, 2, 0, 7, 1 },
    { "must-understand", "81 a3 00 61 61 02 01 64 62 61 72 5f 01", SENML_PROB_MUST_UNDERSTAND, 1, 0, 7, 1 },
    { "duplicate label", "81 a3 00 61 61 02 01 02 02", SENML_PROB_DUPLICATE_LABEL, 1, 0, 7, 1 },
    { "no value", "81 a2 00 61 61 06 01", SENML_PROB_NO_VALUE, 1, 0, 1, 1 },
    { "empty record", "81 a0", SENML_PROB_NO_VALUE, 1, 0, 1, 1 },
    { "v and vs", "81 a3 00 61 61 02 01 03 61 78", SENML_PROB_MULTIPLE_VALUES, 1, 0, 1, 1 },
    { "name with space", "81 a2 00 63 61 20 62 02 01", SENML_PROB_INVALID_NAME, 1, 0, 3, 1 },
    { "name starting with -", "81 a2 00 62 2d 61 02 01", SENML_PROB_INVALID_NAME, 1, 0, 3, 1 },
    { "bver 11", "81 a3 20 0b 00 61 61 02 01", SENML_PROB_VERSION, 1, 0, 3, 1 },
    { "bver changes", "82 a3 20 0a 00 61 61 02 01 a3 20 0b 00 61 61 02 01", SENML_PROB_VERSION, 1, 1, 11, 2 },
    { "reserved minor 28", "81 a2 00 61 61 02 fc", SENML_PROB_INVALID_CBOR, 1, 0, 6, 1 },
    { "reserved minor in pack head", "9c", SENML_PROB_INVALID_CBOR, 1, -1, 0, 0 },
    { "break in definite array", "82 a2 00 61 61 02 01 ff", SENML_PROB_INVALID_CBOR, 1, 1, 7, 2 },
    { "break in definite map", "81 a2 00 61 61 ff", SENML_PROB_INVALID_CBOR, 1, 0, 5, 1 },
    { "break as a value", "81 bf 00 ff", SENML_PROB_INVALID_CBOR, 1, 0, 3, 1 },
    { "truncated array", "82 a2 00 61 61 02 01", SENML_PROB_TRUNCATED, 1, -1, 7, 1 },
    { "truncated map", "81 a3 00 61 61 02 01", SENML_PROB_TRUNCATED, 1, 0, 1, 1 },
    { "truncated text", "81 a2 00 65 61 62", SENML_PROB_TRUNCATED, 1, 0, 3, 1 },
    { "truncated head", "81 a2 00 61 61 02 19 01", SENML_PROB_TRUNCATED, 1, 0, 1, 1 },
    { "truncated indefinite pack", "9f a2 00 61 61 02 01", SENML_PROB_TRUNCATED, 1, -1, 7, 1 },
    { "huge array count", "9b ff ff ff ff ff ff ff ff a2 00 61 61 02 01", SENML_PROB_TRUNCATED, 1, -1, 15, 1 },
    { "huge map count", "81 bb ff ff ff ff ff ff ff ff 00 61 61 02 01", SENML_PROB_TRUNCATED, 1, 0, 1, 1 },
    { "huge text length", "81 a1 00 7b 7f ff ff ff ff ff ff ff 61", SENML_PROB_TRUNCATED, 1, 0, 3, 1 },
    { "text length 2^31-1", "81 a1 00 7a 7f ff ff ff 61", SENML_PROB_TRUNCATED, 1, 0, -1, 1 },
    { "text length 2^31-16", "81 a1 00 7a 7f ff ff f0 61", SENML_PROB_TRUNCATED, 1, 0, -1, 1 },
    { "bytes length 2^32-1", "81 a1 08 5a ff ff ff ff 61", SENML_PROB_TRUNCATED, 1, 0, -1, 1 },
    { "indefinite text, huge chunk", "81 a1 00 7f 7b 7f ff ff ff ff ff ff ff 61 ff", SENML_PROB_TRUNCATED, 1, 0, -1, 1 },
    { "huge nested count", "81 a3 00 61 61 02 01 18 63 9b ff ff ff ff ff ff ff ff 00", SENML_PROB_TRUNCATED, 1, 0, 1, 1 },
    { "unterminated nested", "81 a3 00 61 61 02 01 18 63 9f 9f 9f 01", SENML_PROB_TRUNCATED, 1, 0, 1, 1 },
    { "trailing data", "81 a2 00 61 61 02 01 00 00", SENML_PROB_TRAILING_DATA, 1, -1, 7, 1 },
};

static void test_malformed(gconstpointer data)
{
    const malformed_t *m = data;
    GByteArray *b = g_byte_array_new();
    senml_pack_t *p;
    const senml_problem_t *q;

    put_raw(b, m->hex);
    p = parse(b);
    dump_problems(p);
    g_assert_cmpuint(count(p, m->kind), ==, m->n);
    q = first_problem(p, m->kind);
    g_assert_nonnull(q);
    g_assert_cmpint(q->record, ==, m->record);
    if (m->offset >= 0)
        g_assert_cmpint(q->offset, ==, m->offset);
    g_assert_cmpint(q->offset + q->length, <=, (gint)MAX(b->len, 1));
    g_assert_nonnull(q->detail);
    g_assert_cmpuint(senml_pack_n_records(p), ==, m->n_records);
    g_byte_array_free(b, TRUE);
}

/* A duplicate keeps the first value. */
static void test_duplicate_keeps_first(void)
{
    GByteArray *b = g_byte_array_new();
    senml_pack_t *p;

    put_raw(b, "81 a3 00 61 61 02 01 02 02");
    p = parse(b);
    g_assert_cmpfloat(senml_pack_record(p, 0)->value, ==, 1.0);
    g_byte_array_free(b, TRUE);
}

static void test_too_deep(void)
{
    GByteArray *b = g_byte_array_new();
    senml_pack_t *p;

    put_array(b, 2);
    put_map(b, 3);
    put_int(b, SENML_N); put_text(b, "a");
    put_int(b, SENML_V); put_int(b, 1);
    put_int(b, 99);
    for (int i = 0; i < 40; i++)
        put_array(b, 1);
    put_int(b, 0);
    put_map(b, 2); put_int(b, SENML_N); put_text(b, "b"); put_int(b, SENML_V); put_int(b, 2);
    p = parse(b);
    dump_problems(p);
    g_assert_cmpuint(count(p, SENML_PROB_TOO_DEEP), ==, 1);
    g_assert_false(p->complete);
    g_assert_cmpuint(senml_pack_n_records(p), ==, 1);       /* stops: cannot find record 1 */
    g_byte_array_free(b, TRUE);
}

static void test_nested_skipped(void)
{
    GByteArray *b = g_byte_array_new();
    senml_pack_t *p;

    put_array(b, 2);
    put_map(b, 3);
    put_int(b, SENML_N); put_text(b, "a");
    put_int(b, 99); put_raw(b, "a2 01 9f 01 bf 61 6b 82 01 02 ff ff 02 c1 1a 00 00 00 01");
    put_int(b, SENML_V); put_int(b, 1);
    put_map(b, 2); put_int(b, SENML_N); put_text(b, "b"); put_int(b, SENML_V); put_int(b, 2);
    p = parse(b);
    dump_problems(p);
    g_assert_cmpuint(senml_pack_n_problems(p), ==, 1);
    g_assert_cmpuint(count(p, SENML_PROB_UNKNOWN_LABEL), ==, 1);
    g_assert_cmpuint(senml_pack_n_records(p), ==, 2);
    g_assert_cmpfloat(senml_pack_record(p, 0)->value, ==, 1.0);
    g_assert_cmpstr(senml_pack_record(p, 1)->name, ==, "b");
    g_byte_array_free(b, TRUE);
}

static void test_too_many_records(void)
{
    GByteArray *b = g_byte_array_new();
    senml_pack_t *p;

    put_array(b, 5);
    for (int i = 0; i < 5; i++) {
        put_map(b, 2); put_int(b, SENML_N); put_text(b, "a"); put_int(b, SENML_V); put_int(b, i);
    }
    p = parse_bytes(b->data, b->len, 3);
    dump_problems(p);
    g_assert_cmpuint(senml_pack_n_records(p), ==, 3);
    g_assert_cmpuint(count(p, SENML_PROB_TOO_MANY_RECORDS), ==, 1);
    g_assert_false(p->complete);
    g_byte_array_free(b, TRUE);
}

/* Every prefix of a valid pack: records so far kept, one truncation
 * problem, never an exception. */
static void test_every_truncation(void)
{
    GByteArray *b = rfc_example();

    for (guint len = 1; len < b->len; len++) {
        senml_pack_t *p = parse_bytes(b->data, len, 0);

        g_assert_cmpuint(count(p, SENML_PROB_TRUNCATED), ==, 1);
        g_assert_false(p->complete);
        g_assert_cmpuint(senml_pack_n_records(p), <=, 2);
        if (len >= 0x39)
            g_assert_cmpstr(senml_pack_record(p, 0)->name, ==, "urn:dev:ow:10e2073a01080063");
    }
    g_byte_array_free(b, TRUE);
}

/* Bit flips and random bytes: the parser must return, whatever it finds. */
static void test_fuzz(void)
{
    GByteArray *b = rfc_example();
    GRand *rnd = g_rand_new_with_seed(8428);
    guint8 buf[128];

    for (guint i = 0; i < b->len * 8; i++) {
        guint8 *copy = g_memdup2(b->data, b->len);

        copy[i / 8] ^= (guint8)(1u << (i % 8));
        parse_bytes(copy, b->len, 0);
        g_free(copy);
    }
    for (guint round = 0; round < 20000; round++) {
        guint len = (guint)g_rand_int_range(rnd, 1, sizeof buf);

        for (guint i = 0; i < len; i++)
            buf[i] = (guint8)g_rand_int(rnd);
        if (round % 2)
            buf[0] = 0x80 | (buf[0] & 0x1f);     /* an array head */
        parse_bytes(buf, len, 0);
        if (round % 1000 == 0)
            wmem_free_all(alloc);
    }
    g_rand_free(rnd);
    g_byte_array_free(b, TRUE);
}

static void test_name_validity(void)
{
    g_assert_true(senml_name_is_valid("urn:dev:mac:0024befffe804ff1:energy"));
    g_assert_true(senml_name_is_valid("0a-b.c/d_e"));
    g_assert_false(senml_name_is_valid(""));
    g_assert_false(senml_name_is_valid("_a"));
    g_assert_false(senml_name_is_valid("a b"));
    g_assert_false(senml_name_is_valid("a\xc3\xa9"));
    g_assert_cmpstr(senml_label_name(-6), ==, "bs");
    g_assert_cmpstr(senml_label_name(8), ==, "vd");
    g_assert_null(senml_label_name(9));
    g_assert_null(senml_label_name(-7));
}

int main(int argc, char **argv)
{
    int ret;

    g_test_init(&argc, &argv, NULL);
    wmem_init_scopes();
    alloc = wmem_allocator_new(WMEM_ALLOCATOR_BLOCK);

    g_test_add_func("/senml/rfc8428_section6", test_rfc8428_example);
    g_test_add_func("/senml/base_resolution", test_base_resolution);
    g_test_add_func("/senml/base_only_record", test_base_only_record);
    g_test_add_func("/senml/relative_time", test_relative_time);
    g_test_add_func("/senml/half", test_half);
    g_test_add_func("/senml/numbers", test_numbers);
    g_test_add_func("/senml/value_variants", test_value_variants);
    g_test_add_func("/senml/indefinite_pack", test_indefinite_pack);
    for (guint i = 0; i < G_N_ELEMENTS(malformed); i++) {
        char *path = g_strdup_printf("/senml/malformed/%s/%s", senml_problem_name(malformed[i].kind),
                                     malformed[i].what);
        for (char *c = path; *c; c++)
            if (*c == ' ')
                *c = '_';
        g_test_add_data_func(path, &malformed[i], test_malformed);
        g_free(path);
    }
    g_test_add_func("/senml/duplicate_keeps_first", test_duplicate_keeps_first);
    g_test_add_func("/senml/too_deep", test_too_deep);
    g_test_add_func("/senml/nested_skipped", test_nested_skipped);
    g_test_add_func("/senml/too_many_records", test_too_many_records);
    g_test_add_func("/senml/every_truncation", test_every_truncation);
    g_test_add_func("/senml/fuzz", test_fuzz);
    g_test_add_func("/senml/name_validity", test_name_validity);

    ret = g_test_run();
    wmem_destroy_allocator(alloc);
    wmem_cleanup_scopes();
    return ret;
}
