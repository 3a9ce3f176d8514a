/* Warm start: the run up to [simulation] warm_start is that of the
 * start-up seed (warm_seed), the same in every seed; from there on every
 * stream draws from the run's own seed, and [chaos] begins. Run cold, as
 * every command does today; a sweep may one day start its seeds from a
 * snapshot taken at the point instead (docs/design.md §6 "Warm start"). */
#include "supervisor/warm.h"
#include "net/sim/netsim.h"
#include "supervisor/faults.h"
#include "syscalls/sys.h"
#include <inttypes.h>
#include <stdio.h>
#include <sys/socket.h>
#include <sys/syscall.h>

uint64_t warm_startup_seed(const struct config *c, uint64_t seed)
{
    return config_warm(c) ? c->warm_seed : seed;
}

bool warm_due(const struct world *w)
{
    return w->conf->warm_start_ns && !w->warmed && w->now >= w->conf->warm_start_ns;
}

bool warm_due_at_call(const struct world *w, const struct thread *t)
{
    if (!w->conf->warm_network || w->warmed || SYSNR(t) != SYS_socket) return false;
    int family = (int)ARG0(t);
    return family == AF_INET || family == AF_INET6;
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
    faults_drop_drawn_before(w, w->now);
    if (netsim_reseed(w, w->seed) != 0) world_fail(w, OUT_INTERNAL, "cannot reseed the network at the warm start");
}
