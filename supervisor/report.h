/* A run's verdict and its report (report.c): internal to the supervisor. */
#ifndef DSIM_REPORT_H
#define DSIM_REPORT_H
#include <stddef.h>
#include "world/world.h"

/* Fails the run as a deadlock, naming every blocked thread with its stack. */
/* How many trace lines are kept per event a report shows. */
#define REPORT_RING_FACTOR 8
void report_deadlock(struct world *w);
/* The time limit passed: what each unfinished machine was doing. */
void report_timeout(struct world *w, uint64_t limit);
/* The outcome once the loop ends: pass, or the first failing machine. */
void judge(struct world *w);
/* Runs [check] natively in the run directory; its wait status. */
int run_check(struct world *w, bool print);
/* What the last check printed (malloc'd, at most 64 KiB: its end), or NULL. */
char *check_output(struct world *w);
/* Folds every machine's captured stdout and stderr into the hash. */
void fold_outputs(struct world *w);
/* The failure details: crash stack, last events, machines' stderr. */
/* rerun: what printed commands add to CONF SEED to redo the run (see
 * rerun_options), or NULL. */
char *make_report(struct world *w, size_t recent, const char *rerun);
/* Copies the machines' outputs into dir. */
void keep_outputs(struct world *w, const char *dir);
#endif
