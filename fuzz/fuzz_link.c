/* fuzz_link.c: fragment accounting. The input is a run of captured records,
 * each [u16 length][u16 microseconds since the previous frame][record]; the
 * first byte of the input picks the link type (195, 230, TAP or ZEP in
 * Ethernet). Every record goes through the record, MAC and 6LoWPAN readers
 * and into the tracker (retries, ACKs, datagram copies), finalized at the end.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "fuzz_common.h"
#include "ota_track.h"
#include "wpan_view.h"
#include <wiretap/wtap.h>

static const int encaps[] = { WTAP_ENCAP_IEEE802_15_4, WTAP_ENCAP_IEEE802_15_4_NOFCS,
                              WTAP_ENCAP_IEEE802_15_4_TAP, WTAP_ENCAP_ETHERNET };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_reader_t r = { data, size, 0 };
    gint64 ts = 1000000;
    guint32 frame = 0;

    fuzz_init_once();
    int encap = encaps[fuzz_u8(&r) % G_N_ELEMENTS(encaps)];
    wmem_allocator_t *scope = wmem_allocator_new(WMEM_ALLOCATOR_SIMPLE);
    ota_track_t *t = ota_track_new(scope);
    while (fuzz_more(&r) && frame < 4096) {
        /* Both header fields first: the record must end inside the input
         * (libwireshark is not instrumented and would read past it unseen). */
        guint want = fuzz_u16(&r);
        ts += fuzz_u16(&r);
        guint len = MIN(want, (guint)(r.n - r.at));
        tvbuff_t *rec = tvb_new_real_data(r.p + r.at, len, (gint)len);
        r.at += len;
        gboolean has_fcs = FALSE;
        tvbuff_t *psdu = wpan_view_psdu(rec, encap, &has_fcs);
        wpan_view_t wv;
        ota_link_in_t in = { .frame = ++frame, .ts_us = ts, .air_us = (len + 6) * 32 };
        if (psdu && wpan_view_parse(psdu, has_fcs, &wv)) {
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
            lowpan_view_parse(psdu, wv.payload_offset, wv.payload_end - wv.payload_offset, NULL, &lv))
            ota_track_lowpan(t, f, &lv);
        tvb_free_chain(rec);
    }
    ota_track_finalize(t, 10);
    wmem_destroy_allocator(scope);
    return 0;
}
