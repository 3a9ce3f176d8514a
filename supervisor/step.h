/* One step of a run (step.c): internal to the supervisor. */
#ifndef DSIM_STEP_H
#define DSIM_STEP_H
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include "supervisor/world.h"

/* Runs t's pending syscall (or lets a new thread start) and waits until
 * the run is settled again. */
void step(struct world *w, struct thread *t);
/* Waits for every death and first stop still due (after a machine kill). */
void settle_all(struct world *w);
/* Handles one waitpid notice. */
void handle_status(struct world *w, pid_t pid, int status);
/* The canonical text of t's pending syscall. */
void format_call(struct world *w, struct thread *t, char *buf, size_t len);
/* Arms (or disarms) the real-time tick of the spin watchdog. */
void watchdog_arm(bool on);
/* The supervisor itself spent real time (unwinding a stack): the running
 * thread's count starts again. */
void watchdog_touch(void);
#endif
