/* output_sink.c: the report's stream and the messages (output_sink.h).
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <errno.h>
#include <stdarg.h>
#include <glib/gstdio.h>
#include "output_sink.h"

void ms_say(const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    fputs("meterscope: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

FILE *ms_output_open(const char *path)
{
    FILE *out = path ? g_fopen(path, "w") : stdout;

    if (!out)
        ms_say("cannot write %s: %s", path, g_strerror(errno));
    return out;
}

gboolean ms_output_close(FILE *out, const char *path)
{
    /* Buffered writes fail late: the flush and the close tell. */
    gboolean ok = fflush(out) == 0 && !ferror(out);

    if (out != stdout)
        ok = (fclose(out) == 0) && ok;
    if (!ok)
        ms_say("cannot write %s: %s", path ? path : "the report", g_strerror(errno));
    return ok;
}
