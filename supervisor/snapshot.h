/* A warm start from a snapshot (docs/design.md §6 "Warm start"): a sweep's
 * worker runs the start-up to the point once and would start each seed
 * from a copy of it. Where the host or the config cannot, it says why and
 * the seeds run cold, with the same hashes. */
#ifndef DSIM_SNAPSHOT_H
#define DSIM_SNAPSHOT_H
#include <stdbool.h>
#include <stddef.h>
#include "supervisor/run.h"

/* What in the config or the run's options keeps seeds from starting from
 * a snapshot (before anything runs): NULL if nothing, else why in buf. */
const char *snapshot_config_fence(const struct config *c, const struct run_opts *o, char *buf, size_t len);

/* A snapshot of a warm start's start-up at its point: a template of each
 * machine's processes (copies of them at pids 32000 on, stopped), each
 * machine's disk frozen there. NULL, with why, if the start-up or the host cannot
 * give one; then the start-up is as it was at the point (it can go on as
 * a seed, run_from_point), unless its world failed (outcome set). */
struct snapshot;
struct snapshot *snapshot_make(struct startup *su, char *why, size_t len);
/* Whether seed `seed` of config c can start from the snapshot: not if it
 * crashes a machine after the point whose crash model a copy cannot have
 * (why; the seed runs cold). */
bool snapshot_serves(const struct snapshot *s, const struct config *c, uint64_t seed, char *why, size_t len);
/* Seed `seed` from the snapshot: per machine a copy of each template at
 * its process's pid, with a disk of its own, handed to a forked supervisor that runs
 * the seed from the point on. 0 with r filled; 1 with r filled, but the
 * snapshot cannot serve another seed (why); -1 if the seed did not run
 * (why): later seeds run cold. */
int snapshot_seed(struct snapshot *s, uint64_t seed, const struct run_opts *o, struct seed_result *r, char *why,
                  size_t len);
/* Ends the snapshot and its start-up. */
void snapshot_free(struct snapshot *s);
#endif
