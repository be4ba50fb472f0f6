/* meter-cfg-keys.c: the config blob's key table as a UAT ("meter_cfg_keys":
 * key, name, type, unit). The reference keys are built in and always known
 * (core/meter_cfg.c); the table starts filled with them, and its rows add
 * keys (a newer firmware's: shown as meter.cfg.extra) or rename a reference
 * key. A row that gives a reference key another CBOR type takes it over: it
 * is then shown as meter.cfg.extra too.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <string.h>

#include <epan/packet.h>
#include <epan/prefs.h>
#include <epan/uat.h>
/* uat_add_record(): fills the empty key table with the reference keys. It
 * is exported (WS_DLL_PUBLIC) but declared only in this internal header on
 * 4.0, 4.4 and 4.6 alike: their public uat.h adds no row (uat_load_str()
 * is not exported, uat_set_default_values() fills missing fields, not
 * rows), and prefs_set_pref("uat:...") would feed our own rows through the
 * command-line parser as quoted text. Its last argument is a gboolean on
 * 4.0 and a bool later; TRUE suits both. */
#include <epan/uat-int.h>

#include "meter-cfg-keys.h"

static const value_string cfg_type_vals[] = {
    { METER_CFG_TEXT, "text" },
    { METER_CFG_UINT, "uint" },
    { METER_CFG_INT, "int" },
    { METER_CFG_FLOAT, "float" },
    { METER_CFG_BYTES, "bytes" },
    { METER_CFG_MAP, "map" },
    { METER_CFG_ARRAY, "array" },
    { METER_CFG_BOOL, "bool" },
    { 0, NULL },
};

typedef struct {
    guint32 key;
    char *name;
    char *type;
    char *unit;
} cfg_key_rec_t;

static cfg_key_rec_t *cfg_key_recs = NULL;
static guint cfg_key_nrecs = 0;
static uat_t *cfg_key_uat = NULL;
static gboolean cfg_key_prefill_pending = TRUE;
static meter_cfg_keys_t *cfg_keys = NULL;

UAT_DEC_CB_DEF(cfg_key_recs, key, cfg_key_rec_t)
UAT_CSTRING_CB_DEF(cfg_key_recs, name, cfg_key_rec_t)
UAT_CSTRING_CB_DEF(cfg_key_recs, unit, cfg_key_rec_t)

static void cfg_key_recs_type_set_cb(void *rec, const char *buf, guint len,
                                     const void *u1 _U_, const void *u2 _U_)
{
    cfg_key_rec_t *r = (cfg_key_rec_t *)rec;

    g_free(r->type);
    r->type = g_strndup(buf, len);
}

static void cfg_key_recs_type_tostr_cb(void *rec, char **out_ptr, unsigned *out_len,
                                       const void *u1 _U_, const void *u2 _U_)
{
    const cfg_key_rec_t *r = (const cfg_key_rec_t *)rec;

    *out_ptr = g_strdup(r->type ? r->type : "");
    *out_len = (unsigned)strlen(*out_ptr);
}

static void *cfg_key_copy_cb(void *dest, const void *source, size_t len _U_)
{
    cfg_key_rec_t *d = (cfg_key_rec_t *)dest;
    const cfg_key_rec_t *s = (const cfg_key_rec_t *)source;

    d->key = s->key;
    d->name = g_strdup(s->name);
    d->type = g_strdup(s->type);
    d->unit = g_strdup(s->unit);
    return d;
}

static void cfg_key_free_cb(void *rec)
{
    cfg_key_rec_t *r = (cfg_key_rec_t *)rec;

    g_free(r->name);
    g_free(r->type);
    g_free(r->unit);
}

static gboolean cfg_type_from_str(const char *s, meter_cfg_type_t *type)
{
    if (!s)
        return FALSE;
    for (guint i = 0; cfg_type_vals[i].strptr; i++) {
        if (g_ascii_strcasecmp(cfg_type_vals[i].strptr, s) == 0) {
            *type = (meter_cfg_type_t)cfg_type_vals[i].value;
            return TRUE;
        }
    }
    return FALSE;
}

/* The reference keys first, then the UAT's rows in order (a later row for the
 * same key wins). Rows with an empty name or an unknown type are ignored. */
static void cfg_keys_rebuild(void)
{
    meter_cfg_keys_free(cfg_keys);
    cfg_keys = meter_cfg_keys_new();
    for (guint i = 0; i < cfg_key_nrecs; i++) {
        const cfg_key_rec_t *r = &cfg_key_recs[i];
        meter_cfg_type_t type;

        if (cfg_type_from_str(r->type, &type))
            meter_cfg_keys_add(cfg_keys, r->key, r->name, type, r->unit);
    }
}

static void cfg_key_post_update_cb(void)
{
    /* The first load of a profile without the table (or with an empty one)
     * shows the reference keys in it; emptying it later is respected, and the
     * reference keys stay known regardless. */
    if (cfg_key_prefill_pending && cfg_key_nrecs == 0 && cfg_key_uat) {
        cfg_key_prefill_pending = FALSE;
        for (guint i = 0; i < METER_CFG_N_REF_KEYS; i++) {
            const meter_cfg_keydef_t *k = meter_cfg_reference_key_at(i);
            cfg_key_rec_t rec = {
                k->key,
                (char *)k->name,
                (char *)val_to_str_const(k->type, cfg_type_vals, "text"),
                (char *)k->unit,
            };
            uat_add_record(cfg_key_uat, &rec, TRUE);
        }
    }
    cfg_key_prefill_pending = FALSE;
    cfg_keys_rebuild();
}

static void cfg_key_reset_cb(void)
{
    cfg_key_prefill_pending = TRUE;
}

/* Wireshark's shutdown: the table built from the UAT goes (tshark unloads
 * the plugin at exit, and LeakSanitizer then sees it as leaked). */
static void cfg_keys_shutdown(void)
{
    meter_cfg_keys_free(cfg_keys);
    cfg_keys = NULL;
}

const meter_cfg_keys_t *meter_cfg_key_table(void)
{
    if (!cfg_keys)
        cfg_keys_rebuild();
    return cfg_keys;
}

uat_t *meter_cfg_keys_register(void)
{
    static uat_field_t cfg_key_fields[] = {
        UAT_FLD_DEC(cfg_key_recs, key, "Key", "The map key (unsigned integer)"),
        UAT_FLD_CSTRING_ISPRINT(cfg_key_recs, name, "Name", "Name shown for the key"),
        { "type", "Type", PT_TXTMOD_ENUM,
          { uat_fld_chk_enum, cfg_key_recs_type_set_cb, cfg_key_recs_type_tostr_cb },
          { cfg_type_vals, cfg_type_vals, cfg_type_vals }, cfg_type_vals,
          "CBOR type of the value: text, uint, int, float, bytes, map, array or bool", FLDFILL },
        UAT_FLD_CSTRING(cfg_key_recs, unit, "Unit", "Unit shown after the value (may be empty)"),
        UAT_END_FIELDS
    };

    cfg_key_uat = uat_new("Meter config keys",
                          sizeof(cfg_key_rec_t),
                          "meter_cfg_keys",
                          TRUE,
                          &cfg_key_recs,
                          &cfg_key_nrecs,
                          UAT_AFFECTS_DISSECTION,
                          NULL,
                          cfg_key_copy_cb,
                          NULL,
                          cfg_key_free_cb,
                          cfg_key_post_update_cb,
                          cfg_key_reset_cb,
                          cfg_key_fields);
    register_shutdown_routine(cfg_keys_shutdown);
    return cfg_key_uat;
}
