/* --verify-sample: which seeds of a sweep are run a second time to check
 * that they replay (FoundationDB's "unseed" check). Pure: the choice
 * depends on the sweep's seeds alone, never on the host or the clock. */
#ifndef DSIM_SAMPLE_H
#define DSIM_SAMPLE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sample_spec {
    bool percent;
    uint64_t value;         /* a count, or thousandths of a percent (5% = 5000) */
};

/* "5%", "0.5%" (up to three decimals, at most 100%) or a count ("10").
 * 0, or -1 if malformed. */
int sample_parse(const char *text, struct sample_spec *out);
/* How many of n seeds: a percentage rounded up, a count cut to n. */
size_t sample_size(const struct sample_spec *s, size_t n);
/* Marks k of the n seeds (chosen[i] for seeds[i]): those whose key, the
 * first draw of the seed's "verify-sample" PRNG stream, is smallest (ties by
 * position). A shard of the sweep marks its part of the whole sweep's
 * sample when given the whole sweep. */
void sample_choose(const uint64_t *seeds, size_t n, size_t k, bool *chosen);
#endif
