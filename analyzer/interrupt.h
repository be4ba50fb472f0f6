/* interrupt.h: SIGINT, SIGTERM and SIGHUP stop meterscope cleanly: every
 * tshark it runs is stopped and reaped, the temporaries go, no report is
 * written and it exits 128 + the signal's number. A closed standard output
 * or error (SIGPIPE) is a write error, not a sudden death.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef INTERRUPT_H
#define INTERRUPT_H

/* From now on those signals are handled in the default main context (the
 * wait for the tshark runs iterates it). */
void ms_interrupt_catch(void);

/* Live mode: the first of those signals calls first() (which ends the
 * input, so that the report is written) and stops nothing; a second one
 * stops as above. */
void ms_interrupt_soft(void (*first)(int sig));

/* The signal that asked meterscope to stop, 0 if none came. */
int ms_interrupt_signal(void);

/* The report is about to be written: the signal caught so far (0 if none,
 * then write it); a signal that comes later lets the report finish. */
int ms_interrupt_commit(void);

/* "SIGINT", "SIGTERM", "SIGHUP". */
const char *ms_interrupt_name(int sig);

#endif
