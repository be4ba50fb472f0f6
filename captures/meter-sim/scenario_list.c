/* scenario_list.c: every named scenario, the ordinary ones (scenario.c)
 * then the fault ones (scenario_faults.c), found by number or by name.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <string.h>
#include "scenario.h"

const scenario_t *scenario_nth(guint i)
{
    guint n_ordinary, n_faults;
    const scenario_t *ordinary = scenario_ordinary(&n_ordinary);
    const scenario_t *faults = scenario_faults(&n_faults);

    if (i < n_ordinary)
        return &ordinary[i];
    i -= n_ordinary;
    return i < n_faults ? &faults[i] : NULL;
}

const scenario_t *scenario_find(const char *name)
{
    const scenario_t *s;

    for (guint i = 0; (s = scenario_nth(i)) != NULL; i++)
        if (strcmp(s->name, name) == 0)
            return s;
    return NULL;
}
