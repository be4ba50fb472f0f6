/* gcrypt_init.h: libgcrypt must be initialised once per process before use.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef GCRYPT_INIT_H
#define GCRYPT_INIT_H

/* Initialises libgcrypt unless the program already did. */
void sim_gcrypt_init(void);

#endif
