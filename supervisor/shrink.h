/* dsim shrink: the smallest fault plan that still fails the same way. */
#ifndef DSIM_SHRINK_H
#define DSIM_SHRINK_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "base/config.h"

/* Runs seed (with the config's faults, or `start` if use_start), then
 * reduces the faults that fired to a minimal plan failing for the same
 * reason, prints what it removed and writes the plan to out_path; its
 * replay line adds rerun (the other options that change the run).
 * Returns 0, or 2 if the seed passes or on error. */
int shrink_seed(struct config *c, const char *confpath, uint64_t seed, const struct fault_conf *start,
                size_t nstart, bool use_start, const char *out_path, const char *rerun);
#endif
