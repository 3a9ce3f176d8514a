/* Warm start: the run up to [simulation] warm_start is that of the
 * start-up seed (warm_seed), the same in every seed; from there on every
 * stream draws from the run's own seed. Run cold, this is how `replay`
 * and `verify` see a warm seed; a sweep may later start its seeds from a
 * snapshot taken at the point instead (docs/design.md "Warm start"). */
#include "supervisor/warm.h"
#include "net/sim/netsim.h"
#include <inttypes.h>
#include <stdio.h>

uint64_t warm_startup_seed(const struct config *c, uint64_t seed)
{
    return c->warm_start_ns ? c->warm_seed : seed;
}

bool warm_due(const struct world *w)
{
    return !w->warmed && w->conf->warm_start_ns && w->now >= w->conf->warm_start_ns;
}

void warm_point(struct world *w)
{
    w->warmed = true;
    trace_event(w->trace, w->now, "-", 0, "warm start: seed %" PRIu64 " from here (start-up seed %" PRIu64 ")",
                w->seed, w->startup_seed);
    prng_init(&w->sched, w->seed, "sched");
    for (size_t i = 0; i < w->nmachines; i++) {
        struct machine *m = &w->machines[i];
        char name[300];
        snprintf(name, sizeof name, "entropy/%s", m->name);
        prng_init(&m->entropy, w->seed, name);
        snprintf(name, sizeof name, "disk/%s", m->name);
        prng_init(&m->disk, w->seed, name);
    }
    if (netsim_reseed(w, w->seed) != 0) world_fail(w, OUT_INTERNAL, "cannot reseed the network at the warm start");
}
