/* gcrypt_init.c: one-time libgcrypt initialisation for the generator and the
 * unit tests, neither of which initialises it otherwise.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <gcrypt.h>
#include <glib.h>
#include "gcrypt_init.h"

void sim_gcrypt_init(void)
{
    static gsize done = 0;

    if (g_once_init_enter(&done)) {
        if (!gcry_control(GCRYCTL_INITIALIZATION_FINISHED_P)) {
            gcry_check_version(NULL);
            /* Every key here derives from a public seed or a test key: no
             * secure memory needed, and no warnings about its absence. */
            gcry_control(GCRYCTL_DISABLE_SECMEM, 0);
            gcry_control(GCRYCTL_INITIALIZATION_FINISHED, 0);
        }
        g_once_init_leave(&done, 1);
    }
}
