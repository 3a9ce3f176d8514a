/* The version-pinned PRNG: xoshiro256** seeded with splitmix64.
 * Every random decision of a run comes from a named stream derived from the
 * seed, so that one consumer drawing more numbers never shifts another. */
#ifndef DSIM_PRNG_H
#define DSIM_PRNG_H
#include <stddef.h>
#include <stdint.h>

struct prng { uint64_t s[4]; };

/* Derive stream NAME (e.g. "sched", "entropy/db1", "net") from SEED. The
 * derivation is fixed forever: changing it changes every recorded seed. */
void prng_init(struct prng *p, uint64_t seed, const char *name);
uint64_t prng_next(struct prng *p);
/* Uniform in [0, n), n > 0, without modulo bias. */
uint64_t prng_below(struct prng *p, uint64_t n);
void prng_fill(struct prng *p, void *buf, size_t len);
#endif
