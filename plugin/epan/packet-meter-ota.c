/* packet-meter-ota.c: shows where each frame stands in its block-wise
 * transfer (meter.ota.*) and in its 6LoWPAN datagram (meter.frag.*), with
 * the expert infos of docs/ota-sessions.md. Numbers that depend on later
 * frames (a datagram that never completes, a transfer that never ends,
 * acknowledgements) show on later passes: the GUI and tshark -2.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <epan/packet.h>
#include <epan/expert.h>
#include "meter-proto.h"
#include "packet-meter-ota.h"
#include "verdict.h"

static int hf_ota_block = -1, hf_ota_offset = -1, hf_ota_block_size = -1, hf_ota_szx = -1;
static int hf_ota_bytes = -1, hf_ota_percent = -1, hf_ota_elapsed = -1;
static int hf_ota_rtt_first = -1, hf_ota_rtt_last = -1, hf_ota_turnaround = -1;
static int hf_ota_round = -1, hf_ota_prev_tx = -1, hf_ota_first_frame = -1;
static int hf_ota_verdict_cause = -1, hf_ota_verdict = -1;
static int hf_ota_hop_copy = -1, hf_ota_retransmission = -1, hf_ota_rerequest = -1;
static int hf_ota_duplicate_response = -1, hf_ota_cause = -1, hf_ota_stall = -1;
static int hf_ota_same_transmission = -1;
static int hf_frag_mac_retry = -1, hf_frag_sniffer_dup = -1, hf_frag_first_tx = -1;
static int hf_frag_ack_in = -1, hf_frag_acks = -1;
static int hf_frag_src = -1, hf_frag_dst = -1, hf_frag_tag = -1, hf_frag_size = -1;
static int hf_frag_offset = -1, hf_frag_seen = -1, hf_frag_covered = -1, hf_frag_complete = -1;
static int hf_frag_datagram = -1, hf_frag_completed_in = -1, hf_frag_transfer = -1;
static gint ett_ota = -1, ett_frag = -1;

static expert_field ei_ota_retransmission = EI_INIT, ei_ota_rerequest = EI_INIT;
static expert_field ei_ota_duplicate_response = EI_INIT;
static expert_field ei_ota_out_of_order = EI_INIT, ei_ota_gap = EI_INIT;
static expert_field ei_ota_renegotiation = EI_INIT, ei_ota_szx7 = EI_INIT, ei_ota_szx0 = EI_INIT;
static expert_field ei_ota_szx_larger = EI_INIT;
static expert_field ei_ota_error_response = EI_INIT, ei_ota_length = EI_INIT;
static expert_field ei_ota_verdict = EI_INIT;
static expert_field ei_ota_last_block = EI_INIT, ei_ota_stall = EI_INIT, ei_ota_incomplete = EI_INIT;
static expert_field ei_frag_incomplete = EI_INIT, ei_frag_lost = EI_INIT, ei_frag_mac_retry = EI_INIT;
static expert_field ei_frag_bad_size = EI_INIT;

static const value_string cause_vals[] = {
    { OTA_CAUSE_NONE, "none" },
    { OTA_CAUSE_REQUEST_LOST, "the request's datagram was lost (incomplete or unacknowledged)" },
    { OTA_CAUSE_RESPONSE_LOST, "the response's datagram was lost (incomplete or unacknowledged)" },
    { OTA_CAUSE_NOT_ACCEPTED, "a response got through on air but the meter did not take it" },
    { OTA_CAUSE_NOTHING_VISIBLE, "nothing visibly lost: a late response or a sniffer miss" },
    { OTA_CAUSE_SPURIOUS, "spurious: the answer to an earlier transmission came after it (a slow path, not a loss)" },
    { 0, NULL },
};

static char *addr_text(wmem_allocator_t *scope, ota_addr_t a)
{
    if ((a >> 16) == 0xffff)
        return wmem_strdup_printf(scope, "0x%04x", (guint)(a & 0xffff));
    return wmem_strdup_printf(scope, "%016" G_GINT64_MODIFIER "x", a);
}

static proto_item *gen_uint(proto_tree *t, int hf, tvbuff_t *tvb, guint32 v)
{
    proto_item *pi = proto_tree_add_uint(t, hf, tvb, 0, 0, v);
    proto_item_set_generated(pi);
    return pi;
}

static void gen_time(proto_tree *t, int hf, tvbuff_t *tvb, gint64 us)
{
    nstime_t ns;

    if (us < 0)
        return;
    ns.secs = (time_t)(us / 1000000);
    ns.nsecs = (int)(us % 1000000) * 1000;
    proto_item_set_generated(proto_tree_add_time(t, hf, tvb, 0, 0, &ns));
}

static void gen_bool(proto_tree *t, int hf, tvbuff_t *tvb, gboolean v)
{
    proto_item_set_generated(proto_tree_add_boolean(t, hf, tvb, 0, 0, v));
}

/* Stock CoAP calls a message "Retransmitted" whenever its Message ID comes
 * again in the conversation: on a further mesh hop, or in a MAC retry, that
 * is the same transmission, and the tree says so. */
static gboolean stock_coap_says_retransmitted(proto_tree *root)
{
    static int hf_coap_retransmitted = -2;
    GPtrArray *found;

    if (hf_coap_retransmitted == -2)
        hf_coap_retransmitted = proto_registrar_get_id_byname("coap.retransmitted");
    if (!root || hf_coap_retransmitted < 0)
        return FALSE;
    found = proto_find_first_finfo(root, hf_coap_retransmitted);
    gboolean said = found && found->len > 0;
    if (found)
        g_ptr_array_free(found, TRUE);     /* the caller's to free */
    return said;
}

static void show_same_transmission(proto_tree *root, proto_tree *where, tvbuff_t *tvb, guint32 first_frame,
                                   const char *what)
{
    if (!stock_coap_says_retransmitted(root))
        return;
    proto_item *pi = proto_tree_add_uint(where, hf_ota_same_transmission, tvb, 0, 0, first_frame);
    proto_item_set_generated(pi);
    proto_item_append_text(pi, " (not a CoAP retransmission, whatever CoAP says: %s)", what);
}

void meter_ota_show_frame(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, const ota_link_view_t *f)
{
    proto_item *ti;
    proto_tree *ft;
    gboolean later = PINFO_FD_VISITED(pinfo);

    /* Only frames with something to say: retries, fragments, acknowledged frames. */
    if (!f->mac_retry && !f->sniffer_dup && !(f->copy && f->fragmented) && !f->ack_frame)
        return;
    ti = proto_tree_add_item(tree, proto_meter, tvb, 0, 0, ENC_NA);
    proto_item_append_text(ti, ", link");
    ft = proto_item_add_subtree(ti, ett_frag);
    if (f->mac_retry) {
        gen_bool(ft, hf_frag_mac_retry, tvb, TRUE);
        if (f->first_tx_frame)
            gen_uint(ft, hf_frag_first_tx, tvb, f->first_tx_frame);
        expert_add_info(pinfo, ti, &ei_frag_mac_retry);
        show_same_transmission(tree, ft, tvb, f->first_tx_frame, "a MAC retry of the same 802.15.4 frame");
    }
    if (f->sniffer_dup) {
        gen_bool(ft, hf_frag_sniffer_dup, tvb, TRUE);
        if (f->first_tx_frame)
            gen_uint(ft, hf_frag_first_tx, tvb, f->first_tx_frame);
        show_same_transmission(tree, ft, tvb, f->first_tx_frame, "the same frame captured twice");
    }
    if (f->ack_frame)
        gen_uint(ft, hf_frag_ack_in, tvb, f->ack_frame);
    if (!f->copy || !f->fragmented)
        return;
    proto_item_append_text(ti, ", fragment %u of datagram %u", f->frag_index + 1, f->copy);
    gen_uint(ft, hf_frag_datagram, tvb, f->copy);
    if (f->transfer)
        gen_uint(ft, hf_frag_transfer, tvb, f->transfer);
    /* Text only for a tree that keeps it (formatting is most of the cost). */
    if (ft) {
        proto_item_set_generated(proto_tree_add_string(ft, hf_frag_src, tvb, 0, 0, addr_text(pinfo->pool, f->copy_src)));
        proto_item_set_generated(proto_tree_add_string(ft, hf_frag_dst, tvb, 0, 0, addr_text(pinfo->pool, f->copy_dst)));
    }
    gen_uint(ft, hf_frag_tag, tvb, f->tag);
    gen_uint(ft, hf_frag_size, tvb, f->size);
    if (f->bad_size)
        expert_add_info_format(pinfo, ti, &ei_frag_bad_size,
                               "6LoWPAN datagram_size %u is 0 or smaller than its fragments: it can never be complete",
                               f->size);
    gen_uint(ft, hf_frag_offset, tvb, f->frag_offset);
    gen_uint(ft, hf_frag_seen, tvb, f->frags_seen);
    gen_uint(ft, hf_frag_covered, tvb, f->covered);
    if (f->frag_acked || later)
        gen_bool(ft, hf_frag_acks, tvb, f->frag_acked);
    if (f->complete) {
        gen_bool(ft, hf_frag_complete, tvb, TRUE);
        gen_uint(ft, hf_frag_completed_in, tvb, f->complete_frame);
    } else if (later) {
        /* Only once the whole capture was read is "never completed" known. */
        gen_bool(ft, hf_frag_complete, tvb, FALSE);
        expert_add_info(pinfo, ti, &ei_frag_incomplete);
    }
    if (later && !f->frag_acked && !f->mac_retry)
        expert_add_info(pinfo, ti, &ei_frag_lost);
}

void meter_ota_show_message(tvbuff_t *tvb, packet_info *pinfo, proto_tree *root, proto_tree *tree,
                            const ota_copy_result_t *result, const meter_coap_t *m, double stall_s)
{
    proto_item *ti;
    proto_tree *ot;
    ota_msg_view_t view, *r = &view;
    ota_result_view(result, &view);
    const meter_block_t *b = r->upload ? &m->block1 : &m->block2;
    guint plen = m->payload ? tvb_reported_length(m->payload) : 0;

    ti = proto_tree_add_item(tree, proto_meter, tvb, 0, 0, ENC_NA);
    proto_item_set_text(ti, "Block-wise transfer %u", r->transfer);
    ot = proto_item_add_subtree(ti, ett_ota);
    guint32 size = b->present ? meter_block_size(b->szx) : 0;
    if (b->present) {
        proto_item_append_text(ti, ", block %u (%u bytes at %u)", b->num, size, b->num * size);
        gen_uint(ot, hf_ota_block, tvb, b->num);
        gen_uint(ot, hf_ota_offset, tvb, b->num * size);
        gen_uint(ot, hf_ota_block_size, tvb, size);
        gen_uint(ot, hf_ota_szx, tvb, b->szx);
    }
    gen_uint(ot, hf_ota_bytes, tvb, r->bytes_so_far);
    if (r->size_hint > 0) {
        proto_item *pi = proto_tree_add_double(ot, hf_ota_percent, tvb, 0, 0,
                                               100.0 * r->bytes_so_far / (double)r->size_hint);
        proto_item_set_generated(pi);
    }
    gen_time(ot, hf_ota_elapsed, tvb, r->elapsed_us);
    gen_time(ot, hf_ota_rtt_first, tvb, r->rtt_first_us);
    gen_time(ot, hf_ota_rtt_last, tvb, r->rtt_last_us);
    gen_time(ot, hf_ota_turnaround, tvb, r->turnaround_us);
    gen_uint(ot, hf_ota_round, tvb, r->round);
    gen_uint(ot, hf_ota_first_frame, tvb, r->transfer_first_frame);
    if (r->prev_tx_frame)
        gen_uint(ot, hf_ota_prev_tx, tvb, r->prev_tx_frame);
    gen_bool(ot, hf_ota_hop_copy, tvb, r->hop_copy);
    if (r->hop_copy)
        show_same_transmission(root, ot, tvb, r->round_first_frame, "the copy of that frame on a further mesh hop");
    gen_bool(ot, hf_ota_retransmission, tvb, r->retransmission);
    gen_bool(ot, hf_ota_rerequest, tvb, r->rerequest);
    gen_bool(ot, hf_ota_duplicate_response, tvb, r->duplicate_response);

    if (r->retransmission) {
        expert_add_info(pinfo, ti, &ei_ota_retransmission);
    }
    if (r->rerequest)
        expert_add_info(pinfo, ti, &ei_ota_rerequest);
    if (r->duplicate_response)
        expert_add_info(pinfo, ti, &ei_ota_duplicate_response);
    if (r->cause != OTA_CAUSE_NONE)
        gen_uint(ot, hf_ota_cause, tvb, r->cause);
    if (r->out_of_order)
        expert_add_info(pinfo, ti, &ei_ota_out_of_order);
    if (r->gap)
        expert_add_info(pinfo, ti, &ei_ota_gap);
    if (r->renegotiation)
        expert_add_info(pinfo, ti, &ei_ota_renegotiation);
    if (r->szx_larger && !r->hop_copy)
        expert_add_info_format(pinfo, ti, &ei_ota_szx_larger,
                               "A block of %u bytes (SZX %u) answers a request for %u (SZX %u): RFC 7959 2.4 lets "
                               "a server only lower it", size, b->szx, meter_block_size(r->szx_asked), r->szx_asked);
    if (r->stall_us > (gint64)(stall_s * 1e6)) {
        gen_time(ot, hf_ota_stall, tvb, r->stall_us);
        expert_add_info_format(pinfo, ti, &ei_ota_stall, "Transfer stalled for %.1f s before this message",
                               r->stall_us / 1e6);
    }
    if (b->present && b->szx == 7 && !r->hop_copy)
        expert_add_info(pinfo, ti, &ei_ota_szx7);
    if (!meter_coap_is_request(m) && m->code != COAP_CODE_EMPTY && !r->hop_copy) {
        /* Class 2 or below: not a redirect (3.xx) nor an error. */
        gboolean success = coap_code_class(m->code) <= 2;
        if (coap_code_is_error(m->code))
            expert_add_info_format(pinfo, ti, &ei_ota_error_response, "Error response %u.%02u%s",
                                   coap_code_class(m->code), m->code & 31, plen ? " with a payload" : "");
        if (r->asked_szx0 && (coap_code_is_error(m->code) || (success && plen == 0)))
            expert_add_info(pinfo, ti, &ei_ota_szx0);
        /* A download's response carries the block; an upload's does not. */
        gboolean carries = !r->upload;
        if (carries && b->present && success && ((b->more && plen != size) || (!b->more && plen > size)))
            expert_add_info_format(pinfo, ti, &ei_ota_length, "Block payload of %u bytes; SZX %u means %u",
                                   plen, b->szx, size);
        /* A size read off the image is a lower bound: the file may go on after it. */
        gint64 end = (gint64)b->num * size + plen;
        if (carries && b->present && !b->more && success && r->size_hint > 0 &&
            (r->size_at_least ? end < r->size_hint : end != r->size_hint))
            expert_add_info_format(pinfo, ti, &ei_ota_last_block,
                                   "Last block ends at byte %" G_GINT64_MODIFIER "d, the image is %s%" G_GINT64_MODIFIER
                                   "d bytes", end, r->size_at_least ? "at least " : "", r->size_hint);
    }
    if (PINFO_FD_VISITED(pinfo) && !r->complete && pinfo->num == r->last_frame)
        expert_add_info(pinfo, ti, &ei_ota_incomplete);
}

void meter_ota_show_verdict(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, const ota_copy_result_t *result,
                            const meter_coap_t *m, const meter_transfer_record_t *transfer)
{
    meter_verdict_t v;
    ota_msg_view_t view;

    if (!PINFO_FD_VISITED(pinfo) || !transfer)
        return;
    ota_result_view(result, &view);
    const meter_block_t *b = view.upload ? &m->block1 : &m->block2;
    gboolean first_request = meter_coap_is_request(m) && view.round == 1 && !view.hop_copy && !view.rerequest &&
                             (!b->present || b->num == 0);
    if (pinfo->num != transfer->first_frame && !first_request)
        return;
    meter_verdict(transfer, &v);
    proto_item *ti = proto_tree_add_string(tree, hf_ota_verdict_cause, tvb, 0, 0, meter_verdict_cause_name(v.cause));
    proto_item_set_generated(ti);
    proto_item *why = proto_tree_add_string(tree, hf_ota_verdict, tvb, 0, 0, v.evidence);
    proto_item_set_generated(why);
    expert_add_info_format(pinfo, ti, &ei_ota_verdict, "Transfer %u: %s: %s", transfer->transfer,
                           meter_verdict_cause_name(v.cause), v.evidence);
}

void proto_register_meter_ota(void)
{
    static hf_register_info hf[] = {
        { &hf_ota_block, { "Block number", "meter.ota.block", FT_UINT32, BASE_DEC, NULL, 0, NULL, HFILL } },
        { &hf_ota_offset, { "Byte offset", "meter.ota.offset", FT_UINT32, BASE_DEC, NULL, 0, NULL, HFILL } },
        { &hf_ota_block_size, { "Block size", "meter.ota.block_size", FT_UINT32, BASE_DEC, NULL, 0, NULL, HFILL } },
        { &hf_ota_szx, { "SZX", "meter.ota.szx", FT_UINT8, BASE_DEC, NULL, 0, NULL, HFILL } },
        { &hf_ota_bytes, { "Bytes so far", "meter.ota.bytes", FT_UINT32, BASE_DEC, NULL, 0,
          "Bytes delivered contiguously from offset 0 up to this frame", HFILL } },
        { &hf_ota_percent, { "Percent of the image", "meter.ota.percent", FT_DOUBLE, BASE_NONE, NULL, 0,
          "Bytes so far over the image size (Size2, MCUboot header or config blob)", HFILL } },
        { &hf_ota_elapsed, { "Elapsed", "meter.ota.elapsed", FT_RELATIVE_TIME, BASE_NONE, NULL, 0,
          "Since the transfer's first request", HFILL } },
        { &hf_ota_rtt_first, { "Round trip from first transmission", "meter.ota.rtt_first", FT_RELATIVE_TIME,
          BASE_NONE, NULL, 0, "From the request's first transmission to this response copy", HFILL } },
        { &hf_ota_rtt_last, { "Round trip from last transmission", "meter.ota.rtt_last", FT_RELATIVE_TIME,
          BASE_NONE, NULL, 0, "From the request's last transmission to this response copy", HFILL } },
        { &hf_ota_turnaround, { "Meter turn-around", "meter.ota.turnaround", FT_RELATIVE_TIME, BASE_NONE,
          NULL, 0, "From the previous response to this request: the meter's own time", HFILL } },
        { &hf_ota_round, { "Transmission", "meter.ota.round", FT_UINT32, BASE_DEC, NULL, 0,
          "Which transmission (round) of this message this copy belongs to", HFILL } },
        { &hf_ota_prev_tx, { "Previous transmission", "meter.ota.prev_tx", FT_FRAMENUM, BASE_NONE,
          FRAMENUM_TYPE(FT_FRAMENUM_RETRANS_PREV), 0, NULL, HFILL } },
        { &hf_ota_verdict_cause, { "Verdict", "meter.ota.verdict.cause", FT_STRING, BASE_NONE, NULL, 0,
          "The dominant cause of the transfer's lost time (docs/recommendation.md): radio_loss, poll_wait, "
          "spurious_retransmissions, turnaround, backhaul, stalls, protocol_error, capture_imperfect or none",
          HFILL } },
        { &hf_ota_verdict, { "Why", "meter.ota.verdict.evidence", FT_STRING, BASE_NONE, NULL, 0,
          "The verdict's evidence, from the transfer's numbers", HFILL } },
        { &hf_ota_first_frame, { "Transfer started in", "meter.ota.first_frame", FT_FRAMENUM, BASE_NONE,
          NULL, 0, NULL, HFILL } },
        { &hf_ota_hop_copy, { "Copy on a further hop", "meter.ota.hop_copy", FT_BOOLEAN, BASE_NONE, NULL, 0,
          "The same transmission forwarded over another mesh link", HFILL } },
        { &hf_ota_retransmission, { "CoAP retransmission", "meter.ota.retransmission", FT_BOOLEAN, BASE_NONE,
          NULL, 0, "Sent again with the same Message ID", HFILL } },
        { &hf_ota_rerequest, { "Re-request", "meter.ota.rerequest", FT_BOOLEAN, BASE_NONE, NULL, 0,
          "The same block asked again with a new Message ID", HFILL } },
        { &hf_ota_same_transmission, { "Same transmission as", "meter.ota.same_transmission", FT_FRAMENUM,
          BASE_NONE, NULL, 0, "On a frame stock CoAP marks Retransmitted: the frame that first carried this same "
          "transmission (this one is its hop copy, MAC retry or sniffer duplicate)", HFILL } },
        { &hf_ota_duplicate_response, { "Duplicate response", "meter.ota.duplicate_response", FT_BOOLEAN,
          BASE_NONE, NULL, 0, NULL, HFILL } },
        { &hf_ota_cause, { "Likely cause", "meter.ota.cause", FT_UINT8, BASE_DEC, VALS(cause_vals), 0,
          "Why this retransmission or re-request happened, from what is visible", HFILL } },
        { &hf_ota_stall, { "Stalled for", "meter.ota.stall", FT_RELATIVE_TIME, BASE_NONE, NULL, 0, NULL, HFILL } },
        { &hf_frag_mac_retry, { "MAC retry", "meter.frag.mac_retry", FT_BOOLEAN, BASE_NONE, NULL, 0,
          "Same source and sequence number as the previous frame: not acknowledged, sent again", HFILL } },
        { &hf_frag_sniffer_dup, { "Seen twice", "meter.frag.sniffer_duplicate", FT_BOOLEAN, BASE_NONE, NULL, 0,
          "The same transmission captured twice (several sniffers)", HFILL } },
        { &hf_frag_first_tx, { "First transmission", "meter.frag.first_tx", FT_FRAMENUM, BASE_NONE,
          FRAMENUM_TYPE(FT_FRAMENUM_DUP_ACK), 0, NULL, HFILL } },
        { &hf_frag_ack_in, { "Acknowledged in", "meter.frag.ack_in", FT_FRAMENUM, BASE_NONE,
          FRAMENUM_TYPE(FT_FRAMENUM_ACK), 0, NULL, HFILL } },
        { &hf_frag_acks, { "Fragment acknowledged", "meter.frag.acked", FT_BOOLEAN, BASE_NONE, NULL, 0,
          "An ACK followed one of this fragment's transmissions", HFILL } },
        { &hf_frag_datagram, { "Datagram copy", "meter.frag.datagram", FT_UINT32, BASE_DEC, NULL, 0,
          "This datagram on this link (one number per hop)", HFILL } },
        { &hf_frag_transfer, { "Transfer", "meter.frag.transfer", FT_UINT32, BASE_DEC, NULL, 0,
          "The block-wise transfer whose message this datagram carries", HFILL } },
        { &hf_frag_src, { "Link sender", "meter.frag.src", FT_STRING, BASE_NONE, NULL, 0, NULL, HFILL } },
        { &hf_frag_dst, { "Link receiver", "meter.frag.dst", FT_STRING, BASE_NONE, NULL, 0, NULL, HFILL } },
        { &hf_frag_tag, { "Datagram tag", "meter.frag.tag", FT_UINT16, BASE_HEX, NULL, 0, NULL, HFILL } },
        { &hf_frag_size, { "Datagram size", "meter.frag.size", FT_UINT16, BASE_DEC, NULL, 0, NULL, HFILL } },
        { &hf_frag_offset, { "Fragment offset", "meter.frag.offset", FT_UINT16, BASE_DEC, NULL, 0, NULL, HFILL } },
        { &hf_frag_seen, { "Fragments seen", "meter.frag.seen", FT_UINT32, BASE_DEC, NULL, 0,
          "Distinct fragments of this copy so far", HFILL } },
        { &hf_frag_covered, { "Bytes covered", "meter.frag.covered", FT_UINT32, BASE_DEC, NULL, 0, NULL, HFILL } },
        { &hf_frag_complete, { "Datagram complete", "meter.frag.complete", FT_BOOLEAN, BASE_NONE, NULL, 0,
          "Every byte of this copy was seen on this link", HFILL } },
        { &hf_frag_completed_in, { "Completed in", "meter.frag.completed_in", FT_FRAMENUM, BASE_NONE,
          NULL, 0, NULL, HFILL } },
    };
    static gint *ett[] = { &ett_ota, &ett_frag };
    static ei_register_info ei[] = {
        { &ei_ota_retransmission, { "meter.ota.retransmission.expert", PI_SEQUENCE, PI_NOTE,
          "CoAP retransmission (same Message ID)", EXPFILL } },
        { &ei_ota_rerequest, { "meter.ota.rerequest.expert", PI_SEQUENCE, PI_WARN,
          "Re-request: the same block with a new Message ID after a failed exchange", EXPFILL } },
        { &ei_ota_duplicate_response, { "meter.ota.duplicate_response.expert", PI_SEQUENCE, PI_NOTE,
          "Duplicate response: the same response sent again (to a retransmitted request)", EXPFILL } },
        { &ei_ota_out_of_order, { "meter.ota.out_of_order", PI_SEQUENCE, PI_WARN,
          "Block requested out of order", EXPFILL } },
        { &ei_ota_gap, { "meter.ota.gap", PI_SEQUENCE, PI_WARN, "Gap in the blocks requested", EXPFILL } },
        { &ei_ota_renegotiation, { "meter.ota.renegotiation", PI_SEQUENCE, PI_NOTE,
          "Block size renegotiated: the response uses a smaller SZX (RFC 7959 2.5)", EXPFILL } },
        { &ei_ota_szx_larger, { "meter.ota.szx_larger", PI_PROTOCOL, PI_WARN,
          "The response uses a larger SZX than its request asked (RFC 7959 2.4 lets a server only lower it)",
          EXPFILL } },
        { &ei_ota_szx7, { "meter.ota.szx7", PI_PROTOCOL, PI_ERROR,
          "SZX 7 is reserved (RFC 7959 2.2) and must not be sent", EXPFILL } },
        { &ei_ota_szx0, { "meter.ota.szx0", PI_PROTOCOL, PI_WARN,
          "SZX 0 answered with an error or an empty block", EXPFILL } },
        { &ei_ota_error_response, { "meter.ota.error_response", PI_RESPONSE_CODE, PI_WARN,
          "Error response in a block-wise transfer", EXPFILL } },
        { &ei_ota_length, { "meter.ota.length_mismatch", PI_PROTOCOL, PI_WARN,
          "Block payload length does not match its SZX", EXPFILL } },
        { &ei_ota_last_block, { "meter.ota.last_block_size", PI_PROTOCOL, PI_WARN,
          "Last block inconsistent with the image size", EXPFILL } },
        { &ei_ota_stall, { "meter.ota.stall.expert", PI_SEQUENCE, PI_WARN, "Transfer stalled", EXPFILL } },
        { &ei_ota_verdict, { "meter.ota.verdict", PI_SEQUENCE, PI_NOTE,
          "The dominant cause of the transfer's lost time", EXPFILL } },
        { &ei_ota_incomplete, { "meter.ota.incomplete", PI_SEQUENCE, PI_WARN,
          "Transfer never completed in this capture", EXPFILL } },
        { &ei_frag_bad_size, { "meter.frag.bad_size", PI_MALFORMED, PI_ERROR,
            "6LoWPAN datagram_size 0 or smaller than its fragments", EXPFILL } },
        { &ei_frag_incomplete, { "meter.frag.incomplete", PI_SEQUENCE, PI_WARN,
          "6LoWPAN datagram never completed on this link: the whole datagram is lost", EXPFILL } },
        { &ei_frag_lost, { "meter.frag.lost", PI_SEQUENCE, PI_NOTE,
          "Fragment never acknowledged on this link", EXPFILL } },
        { &ei_frag_mac_retry, { "meter.frag.mac_retry.expert", PI_SEQUENCE, PI_CHAT,
          "MAC retry (same sequence number)", EXPFILL } },
    };
    expert_module_t *em = expert_register_protocol(proto_meter);

    proto_register_field_array(proto_meter, hf, array_length(hf));
    proto_register_subtree_array(ett, array_length(ett));
    expert_register_field_array(em, ei, array_length(ei));
}
