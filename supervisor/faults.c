#include "base/xalloc.h"
#include "supervisor/faults.h"
#include "net/sim/netsim.h"
#include "supervisor/machine.h"
#include "base/plan.h"
#include "supervisor/step.h"
#include "base/values.h"
#include "syscalls/sys.h"
#include "disk/durable.h"
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Under a warm start, [chaos] begins at the point: its faults before it
 * are dropped there (faults_drop_before), and wait until then. */
static bool held(const struct world *w, const struct fault_conf *f)
{
    return f->drawn && warm_pending(w);
}

uint64_t faults_next(struct world *w)
{
    uint64_t next = UINT64_MAX;
    for (size_t i = 0; i < w->nfaults; i++)
        if (!w->fault_fired[i] && !held(w, &w->faults[i]) && w->faults[i].at_ns < next) next = w->faults[i].at_ns;
    return next;
}

void faults_drop_drawn_before(struct world *w, uint64_t t)
{
    for (size_t i = 0; i < w->nfaults; i++)
        if (w->faults[i].drawn && w->faults[i].at_ns < t) w->fault_fired[i] = true;     /* not in w->fired */
}

static struct machine *machine_named(struct world *w, const char *name)
{
    for (size_t i = 0; i < w->nmachines; i++)
        if (!strcmp(w->machines[i].name, name)) return &w->machines[i];
    return NULL;
}

/* Each kind's firing, named by its row of FAULT_KIND_ROWS (base/fault.h);
 * m is the machine it hits (NULL for the network's). */
typedef void fire_fn(struct world *w, struct machine *m, const struct fault_conf *f);

/* The wall clock only: monotonic clocks never jump. */
static void fire_clock_jump(struct world *w, struct machine *m, const struct fault_conf *f)
{
    m->clock_offset_ns += f->by_ns;
    trace_event(w->trace, w->now, m->name, 0, "fault %s: clock_jump by %+" PRId64 "ns", f->name, f->by_ns);
}

/* Kills the machine's whole process tree now, as a power cut would, and
 * schedules its restart: after duration, or at once for restart; a crash
 * without a duration leaves it down for good. */
static void fire_crash(struct world *w, struct machine *m, const struct fault_conf *f)
{
    if (!m->started || m->exited) {
        trace_event(w->trace, w->now, m->name, 0, "fault %s: machine not running", f->name);
        return;
    }
    bool restart = f->kind == FAULT_RESTART || f->has_duration;
    trace_event(w->trace, w->now, m->name, 0, "fault %s: crash%s", f->name, restart ? "" : ", down for good");
    m->crashing = true;
    netsim_machine_down(w, m);
    machine_kill(w, m);
    settle_all(w);
    settle_machine_gone(w, m);
    ftimes_flush(w, m);     /* what it changed carries its times into the crash */
    disk_crash(w, m);       /* its unsynced writes, as a power cut leaves them */
    m->crashing = false;
    m->started = false;
    m->paused_until = 0;
    m->start_at = restart ? w->now + f->duration_ns : UINT64_MAX;
    m->incarnation++;
}

static void fire_pause(struct world *w, struct machine *m, const struct fault_conf *f)
{
    m->paused_until = w->now + f->duration_ns;
    trace_event(w->trace, w->now, m->name, 0, "fault %s: pause for %" PRIu64 "ns", f->name, f->duration_ns);
}

/* A network fault is in the network model from the start of the run, at
 * its exact time (netsim_init puts every fault of the run there): firing
 * it only traces it. */
static void fire_net(struct world *w, struct machine *m, const struct fault_conf *f)
{
    char who[1024], rate[16], span[48];
    (void)m;
    fault_targets(f, who, sizeof who);
    if (f->has_duration) snprintf(span, sizeof span, "for %" PRIu64 "ns", f->duration_ns);
    else snprintf(span, sizeof span, "to the end");
    if (!(fault_kinds[f->kind].allows & FK_RATE))
        trace_event(w->trace, w->now, "-", 0, "fault %s: %s %s %s", f->name, fault_kind_name(f->kind), who, span);
    else
        trace_event(w->trace, w->now, "-", 0, "fault %s: %s %s on %s %s", f->name, fault_kind_name(f->kind),
                    percent_str(f->rate_ppm, rate, sizeof rate), who, span);
}

#define FAULT_FIRE(e, name, net, needs, allows, rule, fire) [e] = fire,
static fire_fn *const fire_of[FAULT_KINDS] = { FAULT_KIND_ROWS(FAULT_FIRE) };

void faults_fire(struct world *w)
{
    for (size_t i = 0; i < w->nfaults; i++) {
        const struct fault_conf *f = &w->faults[i];
        if (w->fault_fired[i] || f->at_ns > w->now || held(w, f)) continue;
        w->fault_fired[i] = true;
        w->fired[w->nfired++] = i;
        w->io_epoch++;
        struct machine *m = FAULT_IS_NET(f->kind) ? NULL : machine_named(w, f->machine);
        if (m || FAULT_IS_NET(f->kind)) fire_of[f->kind](w, m, f);    /* the config checked the name */
    }
}

static uint64_t between(struct prng *p, uint64_t lo, uint64_t hi)
{
    return lo + (hi > lo ? prng_below(p, hi - lo + 1) : 0);
}

static int by_time(const void *a, const void *b)
{
    const struct fault_conf *x = a, *y = b;
    if (x->at_ns != y->at_ns) return x->at_ns < y->at_ns ? -1 : 1;
    return strcmp(x->name, y->name);            /* names are unique: a total order */
}

static const char *target(const struct config *c, size_t i)
{
    return c->chaos->nmachines ? c->chaos->machines[i] : c->machines[i].name;
}

static int by_index(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return x < y ? -1 : x > y;
}

/* A network fault among the targets (at most 64, config.c checked), after
 * its time was drawn. VERSION PINNED, like the rest of the stream: a
 * partition draws its length; one machine against the others (0) or
 * halves (1); its left side by a partial shuffle (for i below the side's
 * size, swap i with i + prng_below(targets - i)); then, with
 * partition_one_way, one_way = prng_below(2) == 0. A burst draws its
 * length, its rate, then all targets (0: every link when [chaos] names no
 * machines) or one (1), and which. */
static void draw_net(const struct config *c, struct prng *p, int k, struct fault_conf *f)
{
    const struct chaos_conf *ch = c->chaos;
    size_t nt = ch->nmachines ? ch->nmachines : c->nmachines, order[NET_MAX_MACHINES];
    for (size_t i = 0; i < nt; i++) order[i] = i;
    f->has_duration = true;
    if (k == 3) {
        f->kind = FAULT_PARTITION;
        f->duration_ns = between(p, ch->partition_lo, ch->partition_hi);
        size_t left = prng_below(p, 2) == 0 ? 1 : nt / 2;
        for (size_t i = 0; i < left; i++) {
            size_t j = i + prng_below(p, nt - i), t = order[i];
            order[i] = order[j];
            order[j] = t;
        }
        f->one_way = ch->partition_one_way && prng_below(p, 2) == 0;
        qsort(order, left, sizeof *order, by_index);            /* each side in the file's order */
        qsort(order + left, nt - left, sizeof *order, by_index);
        f->nleft = left;
    } else {
        bool loss = k == 4;
        f->kind = loss ? FAULT_LOSS : FAULT_DUPLICATE;
        f->duration_ns = between(p, loss ? ch->loss_lo : ch->dup_lo, loss ? ch->loss_hi : ch->dup_hi);
        f->rate_ppm = (uint32_t)between(p, loss ? ch->loss_rate_lo : ch->dup_rate_lo,
                                        loss ? ch->loss_rate_hi : ch->dup_rate_hi);
        if (prng_below(p, 2) == 1) {
            order[0] = prng_below(p, nt);
            nt = 1;
        } else if (!ch->nmachines) {
            nt = 0;
        }
    }
    f->machines = calloc(nt + 1, sizeof *f->machines);
    for (size_t i = 0; f->machines && i < nt; i++) f->machines[f->nmachines++] = strdup(target(c, order[i]));
}

/* [chaos]: for each kind, arrivals spaced uniformly in [1, 2 x interval]
 * (mean: the interval), at machines picked uniformly. Integer arithmetic
 * only, so no host's libm can change a draw. The kinds draw in this order,
 * each only when on, so a kind added at the end moves no other's draws. */
static void draw_chaos(const struct config *c, uint64_t seed, struct fault_conf **v, size_t *n, size_t *cap)
{
    const struct chaos_conf *ch = c->chaos;
    struct prng p;
    prng_init(&p, seed, "faults");
    static const char *const names[] = { "crash", "pause", "clock_jump", "partition", "loss", "duplicate" };
    const uint64_t every[] = { ch->crash_every, ch->pause_every, ch->jump_every,
                               ch->partition_every, ch->loss_every, ch->dup_every };
    for (int k = 0; k < 6; k++) {
        uint64_t mean = every[k];
        if (!mean) continue;
        if (ch->swarm) {                /* on or off, and 1/4x to 4x as often */
            static const uint64_t scale[] = { 1, 2, 4, 8, 16 };
            if (prng_below(&p, 2) == 0) continue;
            mean = mean * scale[prng_below(&p, 5)] / 4;
            if (!mean) mean = 1;
        }
        int count = 0;
        for (uint64_t t = between(&p, 1, 2 * mean); t < c->duration_ns && *n < 10000; t += between(&p, 1, 2 * mean)) {
            struct fault_conf f = { .at_ns = t, .drawn = true };
            if (asprintf(&f.name, "chaos-%s-%d", names[k], ++count) < 0) f.name = NULL;
            if (k >= 3) {
                draw_net(c, &p, k, &f);
            } else {
                size_t pick = prng_below(&p, ch->nmachines ? ch->nmachines : c->nmachines);
                f.machine = strdup(target(c, pick));
            }
            if (k == 0) {
                f.kind = FAULT_CRASH;
                f.has_duration = true;
                f.duration_ns = between(&p, ch->down_lo, ch->down_hi);
            } else if (k == 1) {
                f.kind = FAULT_PAUSE;
                f.has_duration = true;
                f.duration_ns = between(&p, ch->pause_lo, ch->pause_hi);
            } else if (k == 2) {
                f.kind = FAULT_CLOCK_JUMP;
                f.by_ns = ch->jump_lo + (int64_t)between(&p, 0, (uint64_t)(ch->jump_hi - ch->jump_lo));
            }
            GROW(*v, *n, *cap);
            (*v)[(*n)++] = f;
        }
    }
}

struct fault_conf *faults_for_run(const struct config *c, uint64_t seed, size_t *n)
{
    struct fault_conf *v = NULL;
    size_t cap = 0;
    *n = 0;
    for (size_t i = 0; i < c->nfaults; i++) {
        GROW(v, *n, cap);
        if (fault_copy(&v[*n], &c->faults[i]) == 0) (*n)++;
    }
    if (c->chaos) draw_chaos(c, seed, &v, n, &cap);
    if (*n) qsort(v, *n, sizeof *v, by_time);
    return v;
}
