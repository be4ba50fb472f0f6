/* number_option.h: the value of a numeric command-line option, read whole
 * and checked against the range the option accepts; every way it can be
 * wrong (not a number, NaN or infinity, out of range, trailing letters,
 * empty) gives a message naming the option, the value and the range.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef NUMBER_OPTION_H
#define NUMBER_OPTION_H

#include <glib.h>

typedef struct {
    const char *name;            /* as the user writes it: "--stall" */
    double      min, max;        /* the range accepted, both included */
    gboolean    whole;           /* a whole number (read as an integer) */
    const char *unit;            /* for the message: "seconds" */
} ms_number_option_t;

/* text as opt's value into *value; FALSE with *err (G_OPTION_ERROR,
 * G_OPTION_ERROR_BAD_VALUE) when it is not a number in opt's range. */
gboolean ms_number_option_parse(const ms_number_option_t *opt, const char *text, double *value, GError **err);

#endif
