/* ratio.h: a quotient of counts or times where the divisor may be nothing
 * (no blocks, no copies): the caller says what the quotient is then. The one
 * definition the verdict, the block-size model and the what-ifs share.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef RATIO_H
#define RATIO_H

/* a / b, or `none` when b is 0 or less. */
static inline double meter_ratio(double a, double b, double none)
{
    return b > 0 ? a / b : none;
}

#endif
