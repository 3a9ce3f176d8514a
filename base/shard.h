/* Which part of a sweep this process runs: --shard I/N (1-based, as Jest,
 * Playwright and Vitest write it) or a CI system's own variables, each in
 * its own base. Pure (the environment comes through a function), unit-tested
 * in tests/unit/test_shard.c. */
#ifndef DSIM_SHARD_H
#define DSIM_SHARD_H
#include <stdbool.h>
#include <stddef.h>

struct shard {
    unsigned long index;    /* 0-based: this shard runs the sweep's seeds index, index+count, ... */
    unsigned long count;
    const char *source;     /* "--shard", or the variables it came from */
};

/* The shard from opt (--shard's text, or NULL) or else from the
 * environment, read through env (getenv, or a test's). 1 if sharded, 0 if
 * not, -1 with why in err. */
int shard_find(const char *opt, const char *(*env)(const char *), struct shard *s, char *err, size_t errlen);
/* Whether the seed at position i of the whole sweep is this shard's. */
static inline bool shard_has(const struct shard *s, size_t i) { return i % s->count == s->index; }
#endif
