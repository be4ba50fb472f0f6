/* fuzz_ota_track.c: the session tracker fed event sequences: frames, ACKs,
 * 6LoWPAN headers and CoAP messages of up to three transfers, in any order,
 * with colliding Message IDs, absurd block numbers and sizes; then
 * finalized (twice, as the GUI does) and its progress read.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "fuzz_common.h"
#include "ota_track.h"

static const guint8 zeros[2048];
static const guint8 ip_meter[16] = { 0x20, 0x01, 0x0d, 0xb8, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1 };
static const guint8 ip_gw[16] = { 0x20, 0x01, 0x0d, 0xb8, 0, 0xff, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1 };
static const guint8 codes[] = { 1, 2, 3, 0, 65, 68, 69, 95, 128, 136, 140, 160 };

static ota_addr_t link_addr(fuzz_reader_t *r)
{
    static const ota_addr_t links[] = { 0, 0xffff0400, 0xffff0401, 0xffff0800, G_GUINT64_CONSTANT(0x00124b0001a0c000) };
    return links[fuzz_u8(r) % G_N_ELEMENTS(links)];
}

static void read_block(fuzz_reader_t *r, meter_block_t *b)
{
    guint8 flags = fuzz_u8(r);
    b->present = flags & 1;
    b->more = (flags >> 1) & 1;
    b->empty = (flags >> 2) & 1;
    b->szx = (flags >> 3) & 7;
    b->num = (flags & 0x40) ? fuzz_u32(r) & 0xfffff : fuzz_u8(r);   /* NUM is 20 bits */
}

static void message(fuzz_reader_t *r, ota_track_t *t, ota_frame_t *last, guint32 last_frame, guint32 *frame, gint64 ts,
                    const address *meter, const address *gw, wmem_allocator_t *tmp)
{
    meter_coap_t m;
    memset(&m, 0, sizeof m);
    m.type = fuzz_u8(r) & 3;
    guint8 c = fuzz_u8(r);
    m.code = c < 200 ? codes[c % G_N_ELEMENTS(codes)] : c;
    m.mid = fuzz_u8(r) & 7;          /* few MIDs: collisions on purpose */
    m.path = (fuzz_u8(r) & 1) ? "firmware/a.img" : "meter/his";
    m.content_format = -1;
    m.size1 = -1;
    m.size2 = (fuzz_u8(r) & 1) ? (gint64)fuzz_u32(r) : -1;
    read_block(r, &m.block1);
    read_block(r, &m.block2);
    guint plen = fuzz_u16(r) % sizeof zeros;
    tvbuff_t *payload = plen ? tvb_new_real_data(zeros, plen, (gint)plen) : NULL;
    m.payload = payload;
    guint8 how = fuzz_u8(r);
    /* The exchange first, as the hook does: a message from the meter or the
     * gateway, with one of two endpoint keys each way. */
    const address *src = (how & 1) ? meter : gw, *dst = (how & 1) ? gw : meter;
    const char *src_key = (how & 0x20) ? "a" : "b", *dst_key = (how & 0x40) ? "a" : "b";
    ++*frame;
    guint32 at = last && (how & 0x10) ? last_frame : *frame;
    coap_exchange_t *ex = ota_track_exchange(t, &m, src_key, dst_key, src, dst, at, ts, tmp);
    ota_image_hints_t hints = { (how & 2) != 0, (how & 4) ? (gint64)fuzz_u32(r) : -1 };
    ota_copy_result_t *res = ota_track_message(t, (how & 0x10) ? last : NULL, at, ts, src_key, ex, &m, &hints);
    if (res) {
        ota_msg_view_t v;
        ota_result_view(res, &v);
        if (ota_result_also(res))
            ota_result_view(ota_result_also(res), &v);
    }
    if (payload)
        tvb_free(payload);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_reader_t r = { data, size, 0 };
    gint64 ts = 1000000;
    guint32 frame = 0;
    ota_frame_t *last = NULL;
    guint32 last_frame = 0;
    address meter, gw;

    fuzz_init_once();
    set_address(&meter, AT_IPv6, 16, ip_meter);
    set_address(&gw, AT_IPv6, 16, ip_gw);
    wmem_allocator_t *scope = wmem_allocator_new(WMEM_ALLOCATOR_SIMPLE);
    ota_track_t *t = ota_track_new(scope);
    for (guint n = 0; fuzz_more(&r) && n < 2048; n++) {
        guint8 op = fuzz_u8(&r);
        ts += (op & 0x80) ? (gint64)fuzz_u16(&r) * 1000 : fuzz_u8(&r);
        switch (op & 3) {
        case 0: {
            ota_link_in_t in = { .frame = ++frame, .ts_us = ts, .has_wpan = !(op & 0x40), .frame_type = 1 };
            in.src = link_addr(&r);
            in.dst = link_addr(&r);
            in.seq = fuzz_u8(&r);
            in.ack_request = op & 0x20;
            in.air_us = fuzz_u8(&r) * 32;
            last = ota_track_frame(t, &in);
            last_frame = in.frame;
            break;
        }
        case 1: {
            ota_link_in_t in = { .frame = ++frame, .ts_us = ts, .has_wpan = TRUE, .frame_type = 2, .air_us = 352 };
            in.seq = fuzz_u8(&r);
            ota_track_frame(t, &in);
            break;
        }
        case 2: {
            if (!last)
                break;
            lowpan_view_t lv = { 0 };
            guint8 flags = fuzz_u8(&r);
            lv.is_frag = flags & 1;
            lv.first = flags & 2;
            lv.has_mesh = flags & 4;
            lv.mesh_orig = link_addr(&r);
            lv.size = fuzz_u16(&r) % 1400;
            lv.tag = fuzz_u8(&r) & 3;
            lv.offset = lv.first ? 0 : (guint16)(fuzz_u8(&r) * 8);
            lv.data_len = fuzz_u8(&r);
            lv.frag1_span = lv.first ? fuzz_u8(&r) : 0;
            lv.has_coap = flags & 8;
            lv.coap_type = fuzz_u8(&r) & 3;
            lv.coap_code = codes[fuzz_u8(&r) % G_N_ELEMENTS(codes)];
            lv.coap_mid = fuzz_u8(&r) & 7;
            ota_track_lowpan(t, last, &lv);
            ota_link_view_t v;
            ota_track_frame_view(last, &v);
            break;
        }
        case 3:
            message(&r, t, last, last_frame, &frame, ts, &meter, &gw, scope);
            break;
        }
        if (op == 0xff)
            ota_track_finalize(t, 1 + fuzz_u8(&r) % 20);
    }
    ota_track_finalize(t, 10);
    ota_track_finalize(t, 2);
    for (guint i = 0; i < ota_track_n_transfers(t); i++)
        (void)ota_track_progress(t, ota_track_record_at(t, i)->transfer, scope);
    (void)ota_track_counts(t);
    wmem_destroy_allocator(scope);
    return 0;
}
