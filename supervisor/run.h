/* One run: a config and a seed in, its result (base/results.h) out. */
#ifndef DSIM_RUN_H
#define DSIM_RUN_H
#include <signal.h>
#include <stdio.h>
#include "world/world.h"

struct run_opts {
    FILE *trace_out;        /* full trace, or NULL */
    bool trace_results;     /* with it, notes of the results of calls the kernel ran */
    bool results_of_reads;  /* only of those that read data in (dsim verify: each costs a stop) */
    const char *keep_dir;   /* copy machine outputs here (DIR/NAME.stdout), or NULL */
    bool exec_stdio;        /* machine output goes to dsim's own stdout/stderr */
    size_t recent;          /* trace events kept for the report */
    const char *stacks;     /* machines ("a,b" or "all") whose every syscall gets its stack noted */
    const struct fault_conf *plan;  /* replaces the config's faults when use_plan */
    size_t nplan;
    bool use_plan;
    struct crash_pick *pick;        /* dsim crash-states: one crash's decisions */
    bool quiet_check;               /* the check's output is not printed */
    bool skip_check;                /* nor is the check run (a re-run for its trace only) */
    struct watch *watch;            /* dsim verify: compared with earlier runs as it goes */
    const char *rerun;              /* options a printed command needs to redo the run (rerun_options) */
};

extern volatile sig_atomic_t dsim_interrupted;

/* Runs the seed and fills r (freed with result_free): outcome, reason,
 * hash, times, and for a failure the report; -1 if it could not run. */
int run_seed(struct config *c, uint64_t seed, const struct run_opts *o, struct seed_result *r);
/* A warm start's start-up run once for a sweep (supervisor/snapshot.c):
 * the start-up seed's run up to the point, stopped there, every thread at
 * a stop. NULL, with why, if it could not start or ended before the point
 * (then every seed fails alike, as its cold run says). */
struct startup;
struct startup *run_to_point(struct config *c, const struct run_opts *o, char *why, size_t len);
struct world *startup_world(struct startup *s);
/* In a fork of the process that ran the start-up (its world the state at
 * the point): seed `seed` from the point on, as its cold run has it. */
void run_from_point(struct startup *s, uint64_t seed, const struct run_opts *o, struct seed_result *r);
/* This process is a fork of the one that ran the start-up, its seed's
 * run started from a snapshot: the run directory and disks stay its
 * parent's when the run ends, and run_from_point keeps s. */
void startup_forked(struct startup *s);
/* After run_from_point in a forked process: the highest pid or tid machine
 * `machine` (its index) handed out in the run. */
pid_t startup_last_vtid(const struct startup *s, int machine);
/* Ends the start-up's run: its machines killed, its run directory gone. */
void startup_end(struct startup *s);
/* Removes the run directories still kept, but the newest `keep`. Call with
 * 0 before exiting. */
void run_cleanup(int keep);
#endif
