/* test_block_map.c: the block map (plugin/core/block_map.c) that puts
 * Block1 uploads and Block2 downloads back together: blocks in order and
 * out of order, repeats with the same and with other bytes, gaps, a short
 * last block, a block-size change, absurd offsets and sizes, blocks after
 * completion, and many thousands of blocks in reverse order.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <string.h>

#include <glib.h>

#include "block_map.h"

/* An object whose every byte says where it is (mod 251, a prime, so that a
 * block put at the wrong offset shows). */
static guint8 *object(guint32 len)
{
    guint8 *o = g_malloc(len ? len : 1);

    for (guint32 i = 0; i < len; i++)
        o[i] = (guint8)(i % 251);
    return o;
}

/* Adds block num of size bs of obj (len bytes long); last when it reaches the end. */
static block_map_add_t add_block(block_map_t *m, const guint8 *obj, guint32 len, guint32 num, guint32 bs)
{
    block_map_add_t r;
    guint32 off = num * bs, n = MIN(bs, len - off);

    block_map_add(m, off, obj + off, n, off + n == len, &r);
    return r;
}

static void assert_object(const block_map_t *m, const guint8 *obj, guint32 len)
{
    g_assert_true(block_map_complete(m));
    g_assert_cmpuint(block_map_total(m), ==, len);
    g_assert_cmpuint(block_map_contiguous(m), >=, len);
    g_assert_nonnull(block_map_bytes(m));
    g_assert_cmpmem(block_map_bytes(m), len, obj, len);
}

static void test_in_order(void)
{
    guint32 len = 1000, bs = 64;
    guint8 *obj = object(len);
    block_map_t *m = block_map_new(1u << 20);

    g_assert_null(block_map_bytes(m));
    for (guint32 num = 0; num * bs < len; num++) {
        block_map_add_t r = add_block(m, obj, len, num, bs);

        g_assert_false(r.overlap || r.duplicate || r.conflict || r.beyond_limit || r.after_complete);
        g_assert_cmpuint(block_map_contiguous(m), ==, MIN((num + 1) * bs, len));
        /* The last block is the 40 bytes at 960 (shorter than the block size). */
        g_assert_cmpint(r.completed, ==, (num + 1) * bs >= len);
        g_assert_cmpint(block_map_end_known(m), ==, (num + 1) * bs >= len);
        g_assert_cmpint(block_map_complete(m), ==, (num + 1) * bs >= len);
    }
    assert_object(m, obj, len);
    block_map_free(m);
    g_free(obj);
}

static void test_out_of_order(void)
{
    static const guint32 order[] = { 3, 0, 4, 2, 1 };   /* the last block comes early */
    guint32 len = 70, bs = 16;
    guint8 *obj = object(len);
    block_map_t *m = block_map_new(1u << 20);

    for (guint i = 0; i < G_N_ELEMENTS(order); i++) {
        block_map_add_t r = add_block(m, obj, len, order[i], bs);

        g_assert_false(r.overlap || r.conflict);
        g_assert_cmpint(r.completed, ==, i == G_N_ELEMENTS(order) - 1);
    }
    g_assert_true(block_map_end_known(m));
    assert_object(m, obj, len);
    block_map_free(m);
    g_free(obj);
}

static void test_gap(void)
{
    guint32 len = 64, bs = 16;
    guint8 *obj = object(len);
    block_map_t *m = block_map_new(1u << 20);

    add_block(m, obj, len, 0, bs);
    add_block(m, obj, len, 2, bs);
    add_block(m, obj, len, 3, bs);   /* the last one: the end is known */
    g_assert_true(block_map_end_known(m));
    g_assert_cmpuint(block_map_total(m), ==, len);
    g_assert_false(block_map_complete(m));
    g_assert_cmpuint(block_map_contiguous(m), ==, 16);   /* the prefix stops at the gap */
    g_assert_cmpmem(block_map_bytes(m), 16, obj, 16);
    g_assert_true(add_block(m, obj, len, 1, bs).completed);
    assert_object(m, obj, len);
    block_map_free(m);
    g_free(obj);
}

static void test_repeats(void)
{
    guint32 len = 48, bs = 16;
    guint8 *obj = object(len), other[16];
    block_map_t *m = block_map_new(1u << 20);
    block_map_add_t r;

    add_block(m, obj, len, 0, bs);
    /* The same block again: all of it is there, nothing differs. */
    r = add_block(m, obj, len, 0, bs);
    g_assert_true(r.overlap && r.duplicate);
    g_assert_false(r.conflict);
    /* Block 0 with one byte changed: reported, and the first copy stays. */
    memcpy(other, obj, 16);
    other[5] ^= 0xff;
    block_map_add(m, 0, other, 16, FALSE, &r);
    g_assert_true(r.duplicate && r.conflict);
    g_assert_cmpmem(block_map_bytes(m), 16, obj, 16);
    /* A block straddling known and new bytes (a block-size change): an
     * overlap, not a duplicate; only its new bytes are taken. */
    block_map_add(m, 8, obj + 8, 16, FALSE, &r);
    g_assert_true(r.overlap);
    g_assert_false(r.duplicate || r.conflict);
    g_assert_cmpuint(block_map_contiguous(m), ==, 24);
    /* An empty block is never a duplicate. */
    block_map_add(m, 0, NULL, 0, FALSE, &r);
    g_assert_false(r.overlap || r.duplicate || r.conflict || r.completed);

    add_block(m, obj, len, 1, bs);
    g_assert_true(add_block(m, obj, len, 2, bs).completed);
    assert_object(m, obj, len);
    block_map_free(m);
    g_free(obj);
}

static void test_block_size_change(void)
{
    guint32 len = 300;
    guint8 *obj = object(len);
    block_map_t *m = block_map_new(1u << 20);
    block_map_add_t r;

    /* SZX 4 (256 bytes) for block 0, then SZX 2 (64): NUM 4 is offset 256. */
    block_map_add(m, 0, obj, 256, FALSE, &r);
    block_map_add(m, 4 * 64, obj + 256, 44, TRUE, &r);
    g_assert_true(r.completed);
    assert_object(m, obj, len);
    block_map_free(m);
    g_free(obj);
}

static void test_last_block_shorter_and_other_ends(void)
{
    guint32 len = 40;
    guint8 *obj = object(64);
    block_map_t *m = block_map_new(1u << 20);
    block_map_add_t r;

    /* The end comes from the first last block, however short. */
    block_map_add(m, 32, obj + 32, 8, TRUE, &r);
    g_assert_false(r.other_end);
    g_assert_cmpuint(block_map_total(m), ==, 40);
    /* A second last block that ends elsewhere: reported, the end stays. */
    block_map_add(m, 32, obj + 32, 16, TRUE, &r);
    g_assert_true(r.other_end && r.overlap);
    g_assert_cmpuint(block_map_total(m), ==, 40);
    /* The same last block again is not another end. */
    block_map_add(m, 32, obj + 32, 8, TRUE, &r);
    g_assert_false(r.other_end);
    g_assert_true(r.duplicate);
    block_map_add(m, 0, obj, 32, FALSE, &r);
    g_assert_true(r.completed);
    /* Bytes past the end were kept but are not the object. */
    g_assert_cmpuint(block_map_contiguous(m), ==, 48);
    assert_object(m, obj, len);
    block_map_free(m);
    g_free(obj);
}

static void test_empty_object_never_completes(void)
{
    block_map_t *m = block_map_new(1u << 20);
    block_map_add_t r;

    block_map_add(m, 0, NULL, 0, TRUE, &r);
    g_assert_true(block_map_end_known(m));
    g_assert_false(r.completed || block_map_complete(m));
    g_assert_null(block_map_bytes(m));
    block_map_free(m);
}

static void test_absurd_offsets_and_sizes(void)
{
    guint8 data[64];
    block_map_t *m = block_map_new(1024);
    block_map_t *huge = block_map_new(G_MAXUINT32);
    block_map_add_t r;

    memset(data, 0x5a, sizeof data);
    /* Ends one byte past the limit: nothing kept, no end learnt. */
    block_map_add(m, 1024 - 63, data, 64, TRUE, &r);
    g_assert_true(r.beyond_limit);
    g_assert_false(block_map_end_known(m));
    /* Offsets whose sum with the length wraps around 64 or 32 bits. */
    block_map_add(m, G_MAXUINT64 - 10, data, 64, FALSE, &r);
    g_assert_true(r.beyond_limit);
    block_map_add(m, G_MAXUINT32, data, 64, FALSE, &r);
    g_assert_true(r.beyond_limit);
    /* NUM 2^20 - 1 at SZX 6: 1 GiB in. */
    block_map_add(m, (guint64)0xfffff * 1024, data, 64, FALSE, &r);
    g_assert_true(r.beyond_limit);
    g_assert_cmpuint(block_map_contiguous(m), ==, 0);
    /* Exactly up to the limit is fine. */
    block_map_add(m, 1024 - 64, data, 64, FALSE, &r);
    g_assert_false(r.beyond_limit);

    /* A caller's limit above BLOCK_MAP_MAX_SIZE is cut to it. */
    block_map_add(huge, BLOCK_MAP_MAX_SIZE, data, 1, FALSE, &r);
    g_assert_true(r.beyond_limit);
    block_map_add(huge, BLOCK_MAP_MAX_SIZE - 1, data, 1, FALSE, &r);
    g_assert_false(r.beyond_limit);
    block_map_free(m);
    block_map_free(huge);
}

static void test_after_completion(void)
{
    guint32 len = 32;
    guint8 *a = object(len), b[32];
    block_map_t *m = block_map_new(1u << 20);
    const guint8 *bytes;
    block_map_add_t r;

    block_map_add(m, 0, a, len, TRUE, &r);
    g_assert_true(r.completed);
    bytes = block_map_bytes(m);

    /* A repeat: compared, and it is the same. */
    block_map_add(m, 16, a + 16, 16, TRUE, &r);
    g_assert_true(r.after_complete && r.duplicate);
    g_assert_false(r.conflict || r.other_end || r.completed);
    block_map_add(m, 0, NULL, 0, FALSE, &r);
    g_assert_true(r.after_complete);
    g_assert_false(r.duplicate || r.overlap);

    /* A second object sent with the same key: other bytes, another end.
     * Reported; the first object stays as it was, where it was. */
    memset(b, 0xa5, sizeof b);
    block_map_add(m, 0, b, 16, FALSE, &r);
    g_assert_true(r.after_complete && r.duplicate && r.conflict);
    block_map_add(m, 16, b, 32, TRUE, &r);
    g_assert_true(r.after_complete && r.overlap && r.conflict && r.other_end);
    g_assert_false(r.duplicate);
    block_map_add(m, 4096, b, 32, FALSE, &r);
    g_assert_true(r.after_complete);
    g_assert_false(r.overlap || r.duplicate || r.beyond_limit);
    g_assert_true(block_map_bytes(m) == bytes);
    assert_object(m, a, len);
    block_map_free(m);
    g_free(a);
}

/* 100 000 blocks of 16 bytes, last first: a map that rescanned what it holds
 * on every block would do 10^10 steps here; this one does a few million. */
static void test_many_blocks_reverse(void)
{
    guint32 n = 100000, bs = 16, len = n * bs;
    guint8 *obj = object(len);
    block_map_t *m = block_map_new(BLOCK_MAP_MAX_SIZE);
    GTimer *timer = g_timer_new();

    for (guint32 num = n; num-- > 0;) {
        block_map_add_t r = add_block(m, obj, len, num, bs);

        g_assert_cmpint(r.completed, ==, num == 0);
    }
    g_assert_cmpfloat(g_timer_elapsed(timer, NULL), <, 5.0);
    assert_object(m, obj, len);
    g_timer_destroy(timer);
    block_map_free(m);
    g_free(obj);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/block-map/in-order", test_in_order);
    g_test_add_func("/block-map/out-of-order", test_out_of_order);
    g_test_add_func("/block-map/gap", test_gap);
    g_test_add_func("/block-map/repeats", test_repeats);
    g_test_add_func("/block-map/block-size-change", test_block_size_change);
    g_test_add_func("/block-map/last-block-shorter-and-other-ends", test_last_block_shorter_and_other_ends);
    g_test_add_func("/block-map/empty-object-never-completes", test_empty_object_never_completes);
    g_test_add_func("/block-map/absurd-offsets-and-sizes", test_absurd_offsets_and_sizes);
    g_test_add_func("/block-map/after-completion", test_after_completion);
    g_test_add_func("/block-map/many-blocks-reverse", test_many_blocks_reverse);
    return g_test_run();
}
