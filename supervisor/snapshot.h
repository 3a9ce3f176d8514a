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

/* At the point of the start-up s (run_to_point): whether each machine can
 * be copied by forking (warm_copyable, and each one's thread at a system
 * call stop), and whether the kernel lets its process be copied at a chosen
 * pid (an injected clone3 with set_tid). 0 if so; else -1 with why, the
 * start-up left exactly as it was at the point (it can go on as a seed:
 * run_from_point). */
int snapshot_templates(struct startup *s, char *why, size_t len);
#endif
