/* Where two runs part: the first trace event on which two seeds differ. */
#ifndef DSIM_DIVERGE_H
#define DSIM_DIVERGE_H
#include <stdint.h>
#include <stdio.h>
#include "base/config.h"

struct run_opts;

/* Runs seeds a and b with their traces kept (with the faults of `base`, a
 * plan, if it has one; base may be NULL) and prints to out how long they
 * agree and what each did next, with `context` shared events before.
 * Returns 0 if the traces are identical, 1 if they differ, -1 on error. */
int diverge_print(FILE *out, struct config *c, const struct run_opts *base, uint64_t a, const char *label_a,
                  uint64_t b, const char *label_b, int context);
#endif
