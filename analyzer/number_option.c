/* number_option.c: numeric option values, read with g_ascii_strtoll or
 * g_ascii_strtod (the C locale's digits whatever LC_NUMERIC says) and taken
 * only when the whole text is one finite number within the option's range.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <errno.h>
#include <math.h>
#include "number_option.h"
#include "quoted.h"

static gboolean refuse(const ms_number_option_t *opt, const char *text, const char *what, GError **err)
{
    char *quoted = ms_quoted(text);

    g_set_error(err, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, "%s: '%s' is %s (accepted: %s%g to %g %s)",
                opt->name, quoted, what, opt->whole ? "a whole number from " : "", opt->min, opt->max, opt->unit);
    g_free(quoted);
    return FALSE;
}

gboolean ms_number_option_parse(const ms_number_option_t *opt, const char *text, double *value, GError **err)
{
    char *end = NULL;
    double v;

    errno = 0;
    if (opt->whole)
        v = (double)g_ascii_strtoll(text, &end, 10);
    else
        v = g_ascii_strtod(text, &end);
    /* Both skip leading spaces: the number must be all of the text. */
    if (end == text || *end != '\0' || g_ascii_isspace(*text))
        return refuse(opt, text, opt->whole ? "not a whole number" : "not a number", err);
    /* strtod reads "nan" and "inf" as numbers, and a value too big for a
     * double as infinity; strtoll one too big for 64 bits as the limit,
     * with ERANGE. */
    if (isnan(v))
        return refuse(opt, text, "not a number", err);
    if (isinf(v))
        return refuse(opt, text, "not a finite number", err);
    if ((opt->whole && errno == ERANGE) || v < opt->min || v > opt->max)
        return refuse(opt, text, "out of range", err);
    *value = v + 0.0;            /* -0 as 0 */
    return TRUE;
}
