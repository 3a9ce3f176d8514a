#include "supervisor/faults.h"
#include "supervisor/machine.h"
#include "supervisor/step.h"
#include <inttypes.h>
#include <string.h>

uint64_t faults_next(struct world *w)
{
    uint64_t next = UINT64_MAX;
    for (size_t i = 0; i < w->nfaults; i++)
        if (!w->fault_fired[i] && w->faults[i].at_ns < next) next = w->faults[i].at_ns;
    return next;
}

static struct machine *machine_named(struct world *w, const char *name)
{
    for (size_t i = 0; i < w->nmachines; i++)
        if (!strcmp(w->machines[i].name, name)) return &w->machines[i];
    return NULL;
}

/* Kills the machine's whole process tree now, as a power cut would, and
 * schedules its restart: after duration, or at once for restart; a crash
 * without a duration leaves it down for good. */
static void crash(struct world *w, struct machine *m, const struct fault_conf *f)
{
    if (!m->started || m->exited) {
        trace_event(w->trace, w->now, m->name, 0, "fault %s: machine not running", f->name);
        return;
    }
    bool restart = f->kind == FAULT_RESTART || f->has_duration;
    trace_event(w->trace, w->now, m->name, 0, "fault %s: crash%s", f->name, restart ? "" : ", down for good");
    m->crashing = true;
    machine_kill(w, m);
    settle_all(w);
    m->crashing = false;
    m->started = false;
    m->paused_until = 0;
    m->start_at = restart ? w->now + f->duration_ns : UINT64_MAX;
    m->incarnation++;
}

void faults_fire(struct world *w)
{
    for (size_t i = 0; i < w->nfaults; i++) {
        const struct fault_conf *f = &w->faults[i];
        if (w->fault_fired[i] || f->at_ns > w->now) continue;
        w->fault_fired[i] = true;
        w->fired[w->nfired++] = i;
        struct machine *m = machine_named(w, f->machine);
        if (!m) continue;       /* the config checked the name */
        switch (f->kind) {
        case FAULT_CLOCK_JUMP:
            /* The wall clock only: monotonic clocks never jump. */
            m->clock_offset_ns += f->by_ns;
            trace_event(w->trace, w->now, m->name, 0, "fault %s: clock_jump by %+" PRId64 "ns", f->name, f->by_ns);
            break;
        case FAULT_CRASH:
        case FAULT_RESTART:
            crash(w, m, f);
            break;
        case FAULT_PAUSE:
            m->paused_until = w->now + f->duration_ns;
            trace_event(w->trace, w->now, m->name, 0, "fault %s: pause for %" PRIu64 "ns", f->name, f->duration_ns);
            break;
        }
    }
}
