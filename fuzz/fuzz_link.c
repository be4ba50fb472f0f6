/* fuzz_link.c: fragment accounting. The input is a run of 802.15.4 frames,
 * each [u16 length][u16 microseconds since the previous frame][PSDU with
 * FCS]; every frame goes through the MAC and 6LoWPAN readers and into the
 * tracker (retries, ACKs, datagram copies), which is finalized at the end.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "fuzz_common.h"
#include "ota_track.h"
#include "wpan_view.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_reader_t r = { data, size, 0 };
    gint64 ts = 1000000;
    guint32 frame = 0;

    fuzz_init_once();
    wmem_allocator_t *scope = wmem_allocator_new(WMEM_ALLOCATOR_SIMPLE);
    ota_track_t *t = ota_track_new(scope);
    while (fuzz_more(&r) && frame < 4096) {
        guint len = MIN(fuzz_u16(&r), (guint)(r.n - r.at));
        ts += fuzz_u16(&r);
        tvbuff_t *psdu = tvb_new_real_data(r.p + r.at, len, (gint)len);
        r.at += len;
        wpan_view_t wv;
        ota_link_in_t in = { .frame = ++frame, .ts_us = ts, .air_us = (len + 6) * 32 };
        if (wpan_view_parse(psdu, TRUE, &wv)) {
            in.has_wpan = TRUE;
            in.frame_type = wv.frame_type;
            in.seq = wv.seq;
            in.ack_request = wv.ack_request;
            in.src = wv.src;
            in.dst = wv.dst;
        }
        ota_frame_t *f = ota_track_frame(t, &in);
        lowpan_view_t lv;
        if (in.has_wpan && wv.frame_type == 1 && !wv.security &&
            lowpan_view_parse(psdu, wv.payload_offset, wv.payload_end - wv.payload_offset, &lv))
            ota_track_lowpan(t, f, &lv);
        tvb_free(psdu);
    }
    ota_track_finalize(t, 10);
    wmem_destroy_allocator(scope);
    return 0;
}
