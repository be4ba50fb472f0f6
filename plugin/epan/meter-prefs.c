/* meter-prefs.c: the "meter.*" preferences (meter-prefs.h). Names, titles,
 * descriptions and defaults are what users' preference files and -o name:
 * they must not change.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "meter-prefs.h"
#include "ota_track.h"
#include "senml.h"

meter_prefs_t meter_prefs = {
    .coap_decode = TRUE,
    .frame_records = TRUE,
    .path_config = "meter/cfg",
    .path_history = "meter/his",
    .path_firmware = "firmware/",
    .his_reassemble = TRUE,
    .his_max_records = SENML_MAX_RECORDS_DEFAULT,
    .fw_pubkey = "",
    .ota_stall_seconds = 10,
    .ota_timestamps = OTA_STAMP_UNKNOWN,
};

static const enum_val_t timestamps_vals[] = {
    { "auto", "Read from the gaps between frames and their ACKs", OTA_STAMP_UNKNOWN },
    { "end", "The end of each frame (most radios)", OTA_STAMP_END },
    { "start", "The start of each frame (its SFD)", OTA_STAMP_START },
    { "host", "Arrival at the host (a few ms late)", OTA_STAMP_HOST },
    { NULL, NULL, 0 },
};

void meter_prefs_register(module_t *module, uat_t *cfg_keys)
{
    /* Off, the CoAP messages are followed but not decoded for display: for a
     * run that only wants the statistics (the analyser), it spares stock
     * CoAP's block reassembly, whose cost grows with the square of the blocks. */
    prefs_register_bool_preference(module, "coap_decode", "Decode CoAP for display",
        "Let stock CoAP decode the messages for display (off: the meter hook still "
        "follows them and the statistics are the same, in less time; the analyser turns it off)",
        &meter_prefs.coap_decode);
    /* Later passes (the GUI, tshark -2) show frames from the records the
     * first pass keeps; a one-pass run (the analyser's) reads none of them. */
    prefs_register_bool_preference(module, "frame_records", "Keep frame records for later passes",
        "Keep what each frame showed, for the GUI and tshark -2 (off: a one-pass tshark run, such as the "
        "analyser's, needs less memory; later passes then show no Meter items and the statistics no "
        "frames)", &meter_prefs.frame_records);
    prefs_register_string_preference(module, "path.config", "Config path",
        "URI path of the configuration resource (no leading slash)", &meter_prefs.path_config);
    prefs_register_string_preference(module, "path.history", "History path",
        "URI path the meter POSTs its SenML history to", &meter_prefs.path_history);
    prefs_register_string_preference(module, "path.firmware", "Firmware path prefix",
        "URI paths starting with this are firmware images", &meter_prefs.path_firmware);
    prefs_register_uat_preference(module, "cfg_keys", "Config blob keys",
        "Names and CBOR types of the config blob's keys. The reference keys 1..14 are always known; "
        "rows add a newer firmware's keys (shown as meter.cfg.extra), rename a reference key, "
        "or give it another type (then it is shown as meter.cfg.extra too).",
        cfg_keys);
    prefs_register_bool_preference(module, "his_reassemble", "Reassemble Block1 history uploads",
        "Reassemble a SenML pack sent over several Block1 requests (by byte offset, per transfer) "
        "and decode it on the request that completes it", &meter_prefs.his_reassemble);
    prefs_register_uint_preference(module, "his_max_records", "Maximum SenML records decoded",
        "Records beyond this many in one pack are not decoded (flagged)", 10, &meter_prefs.his_max_records);
    prefs_register_string_preference(module, "fw.pubkey", "Firmware public key (Ed25519)",
        "Ed25519 public key that signs firmware images, 64 hex digits; "
        "empty: signatures are not checked", &meter_prefs.fw_pubkey);
    prefs_register_uint_preference(module, "ota.stall_seconds", "Stall threshold (s)",
        "A transfer with no message for longer than this gets a stall expert info", 10,
        &meter_prefs.ota_stall_seconds);
    /* What the capture's timestamps mark: read from the frame-ACK gaps, or
     * as the user says (for exact times on a capture stamped at frame starts
     * whose first messages come before any ACK that tells). */
    prefs_register_enum_preference(module, "ota.timestamps", "Timestamps mark",
        "The instant each frame's timestamp marks. Times are taken at the frame's end; auto reads the "
        "instant from the gaps between frames and their ACKs", &meter_prefs.ota_timestamps, timestamps_vals, FALSE);
}
