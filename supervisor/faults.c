#include "supervisor/faults.h"
#include <inttypes.h>
#include <string.h>

uint64_t faults_next(struct world *w)
{
    uint64_t next = UINT64_MAX;
    for (size_t i = 0; i < w->conf->nfaults; i++)
        if (!w->fault_fired[i] && w->conf->faults[i].at_ns < next) next = w->conf->faults[i].at_ns;
    return next;
}

static struct machine *machine_named(struct world *w, const char *name)
{
    for (size_t i = 0; i < w->nmachines; i++)
        if (!strcmp(w->machines[i].name, name)) return &w->machines[i];
    return NULL;
}

void faults_fire(struct world *w)
{
    for (size_t i = 0; i < w->conf->nfaults; i++) {
        const struct fault_conf *f = &w->conf->faults[i];
        if (w->fault_fired[i] || f->at_ns > w->now) continue;
        w->fault_fired[i] = true;
        struct machine *m = machine_named(w, f->machine);
        if (!m) continue;       /* the config checked the name */
        switch (f->kind) {
        case FAULT_CLOCK_JUMP:
            /* The wall clock only: monotonic clocks never jump. */
            m->clock_offset_ns += f->by_ns;
            trace_event(w->trace, w->now, m->name, 0, "fault %s: clock_jump by %+" PRId64 "ns", f->name, f->by_ns);
            break;
        }
    }
}
