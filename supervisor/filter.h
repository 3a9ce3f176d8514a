/* The seccomp filter every machine runs under: trap by default, allow only
 * local, deterministic memory and signal-mask calls. */
#ifndef DSIM_FILTER_H
#define DSIM_FILTER_H
#include <linux/filter.h>
#include <stddef.h>

struct filter_prog { struct sock_filter *insns; size_t len; };
/* Builds the filter once (in the supervisor, before any fork). 0 or -1. */
int filter_build(struct filter_prog *out);
#endif
