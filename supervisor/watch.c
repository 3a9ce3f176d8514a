#include "supervisor/watch.h"
#include "supervisor/stack.h"
#include "supervisor/step.h"
#include "world/world.h"
#include "base/xalloc.h"
#include "trace/trace.h"
#include <stdlib.h>
#include <string.h>

void watch_init(struct watch *wt, FILE **refs, size_t nrefs)
{
    memset(wt, 0, sizeof *wt);
    wt->refs = calloc(nrefs + 1, sizeof *wt->refs);
    wt->nrefs = nrefs;
    for (size_t i = 0; i < nrefs; i++) {
        fflush(refs[i]);
        rewind(refs[i]);
        wt->refs[i].trace = refs[i];
    }
}

/* The reference's next event line (notes skipped), or NULL at its end. */
static const char *next_event(struct watch_ref *r)
{
    ssize_t n;
    while ((n = getline(&r->line, &r->cap, r->trace)) > 0) {
        if (r->line[n - 1] == '\n') r->line[--n] = 0;
        if (n && strncmp(r->line, "  | ", 4)) return r->line;
    }
    return NULL;
}

/* The stack of the thread that made the event, if it is stopped (it is at
 * a call, a signal or an rdtsc; not at a machine's start or a delivery). */
static void take_stack(struct watch *wt, uint64_t index, const char *line)
{
    char copy[1024], stack[8192];
    struct trace_line l;
    snprintf(copy, sizeof copy, "%s", line);
    GROW(wt->stacks, wt->nstacks, wt->capstacks);
    struct stack_at *s = &wt->stacks[wt->nstacks++];
    memset(s, 0, sizeof *s);
    s->index = index;
    if (trace_parse_line(copy, &l)) return;
    snprintf(s->who, sizeof s->who, "machine %s thread %d", l.machine, l.tid);
    struct world *w = wt->w;
    for (size_t i = 0; w && i < w->nmachines; i++) {
        if (strcmp(w->machines[i].name, l.machine)) continue;
        struct thread *t = world_thread_by_vtid(w, &w->machines[i], l.tid);
        if (t && stack_format(t->tid, stack, sizeof stack) > 0) s->text = strdup(stack);
        break;
    }
    watchdog_reset();           /* unwinding took real time, not the tracee */
}

/* "MACHINE TID" of a line, in key. */
static void thread_key(const char *line, char *key, size_t len)
{
    const char *machine, *text = trace_line_text(line, &machine);
    size_t n = text && machine ? (size_t)(text - 1 - machine) : 0;
    snprintf(key, len, "%.*s", (int)n, n ? machine : "");
}

/* Whether the event's thread is one that parted a few events ago. */
static bool thread_watched(struct watch *wt, const char *key)
{
    for (size_t i = 0; i < wt->nthreads; i++)
        if (wt->threads[i].left > 0 && !strcmp(wt->threads[i].key, key)) {
            wt->threads[i].left--;
            return true;
        }
    return false;
}

void watch_tap(void *arg, uint64_t index, const char *line)
{
    struct watch *wt = arg;
    char key[80];
    thread_key(line, key, sizeof key);
    bool parted = false;
    for (size_t i = 0; i < wt->nrefs; i++) {
        struct watch_ref *r = &wt->refs[i];
        if (r->parted) continue;
        const char *ref = next_event(r);
        if (ref && !strcmp(ref, line)) continue;
        r->parted = parted = true;
        if (wt->capture_until < index + WATCH_WINDOW) wt->capture_until = index + WATCH_WINDOW;
    }
    if (parted && *key && wt->nthreads < sizeof wt->threads / sizeof *wt->threads) {
        snprintf(wt->threads[wt->nthreads].key, sizeof wt->threads[0].key, "%s", key);
        wt->threads[wt->nthreads++].left = WATCH_WINDOW;
    }
    bool mine = *key && thread_watched(wt, key);        /* counts this event against the thread's window */
    if (index < wt->capture_until || mine) take_stack(wt, index, line);
}

void watch_done(struct watch *wt)
{
    for (size_t i = 0; i < wt->nrefs; i++) free(wt->refs[i].line);
    free(wt->refs);
    wt->refs = NULL;
    wt->nrefs = 0;
}
