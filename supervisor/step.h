/* One step of a run (step.c): internal to the supervisor. */
#ifndef DSIM_STEP_H
#define DSIM_STEP_H
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include "world/world.h"

/* Runs t's pending syscall (or lets a new thread start) and waits until
 * the run is settled again. */
void step(struct world *w, struct thread *t);
/* A snapshot's seed (w->warm_stop was set and the step of t stopped at a
 * warm start at the first network call): the point, then the rest of that
 * step, as step() does in a cold run. */
void step_from_point(struct world *w, struct thread *t);
/* Waits for every death and first stop still due (after a machine kill). */
void settle_all(struct world *w);
/* After machine_kill and settle_all: waits until m's init is reaped, its
 * namespaces and mounts with it, so that a restart never meets them. */
void settle_machine_gone(struct world *w, struct machine *m);
/* Handles one waitpid notice. */
void handle_status(struct world *w, pid_t pid, int status);
/* The canonical text of t's pending syscall. */
void format_call(struct world *w, struct thread *t, char *buf, size_t len);
/* The spin watchdog (watchdog.c): arms (or disarms) its real-time tick;
 * forgets the stall measured so far (a notice came); at a tick, fails the
 * run with `spin` and returns true if t has run spin_limit of its own time
 * (on a CPU or asleep in the kernel, not waiting for one) without a stop. */
void watchdog_arm(bool on);
void watchdog_reset(void);
bool watchdog_check(struct world *w, struct thread *t);
#endif
