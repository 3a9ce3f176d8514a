#include "supervisor/diverge.h"
#include "supervisor/run.h"
#include "base/xalloc.h"
#include "trace/trace.h"
#include <stdbool.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static FILE *traced_run(struct config *c, const struct run_opts *base, uint64_t seed)
{
    FILE *f = tmpfile();
    if (!f) return NULL;
    /* The check does not run: its side effects happened in the sweep, and
     * the machines' events are what is compared. */
    struct run_opts o = { .trace_out = f, .recent = 1, .quiet_check = true, .skip_check = true };
    if (base && base->use_plan) {
        o.plan = base->plan;
        o.nplan = base->nplan;
        o.use_plan = true;
    }
    struct seed_result r;
    run_seed(c, seed, &o, &r);
    result_free(&r);
    rewind(f);
    return f;
}

/* ---- per thread: the first thread whose own events differ ---- */

/* A trace's lines, and where each one's thread key ("machine tid") and
 * event text start. */
struct lines { char **v; size_t n, cap; };

static int read_lines(FILE *f, struct lines *l, size_t max)
{
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    rewind(f);
    while ((n = getline(&line, &cap, f)) > 0) {
        if (l->n == max) { free(line); return -1; }
        if (line[n - 1] == '\n') line[n - 1] = 0;
        GROW(l->v, l->n, l->cap);
        l->v[l->n++] = strdup(line);
    }
    free(line);
    return 0;
}

static void free_lines(struct lines *l)
{
    for (size_t i = 0; i < l->n; i++) free(l->v[i]);
    free(l->v);
}

/* Events that tell only of timing, not of a thread's course: reads of the
 * clock (their values follow the schedule), futex calls (whether a lock or
 * a runtime's scheduler lock is contended follows the schedule; CPython's
 * GIL makes one every few calls), and the note that a call waits (it
 * completes later with the same text). */
static bool timing_only(const char *text)
{
    if (trace_is_clock_read(text) || !strncmp(text, "futex(", 6)) return true;
    size_t n = strlen(text);
    return n > 7 && !strcmp(text + n - 7, " blocks");
}

/* A whole trace line that is a timing-only event. */
static bool clock_line(const char *line)
{
    const char *text = trace_line_text(line, NULL);
    return text && timing_only(text);
}

/* "TIME MACHINE TID TEXT": the key is "MACHINE TID", the text the rest.
 * False for lines not compared per thread. */
static bool split(const char *line, size_t *key_from, size_t *key_len, const char **text)
{
    const char *machine;
    *text = trace_line_text(line, &machine);
    if (!*text || !strncmp(machine, "- ", 2)) return false;   /* malformed, or the run's own "end" line */
    *key_from = (size_t)(machine - line);
    *key_len = (size_t)(*text - 1 - machine);
    return !timing_only(*text);
}

/* Walks a trace's lines as per-thread events: an event line gives its own
 * thread; a result on a line of its own ("  | = 3") belongs to the event
 * before it, and is left out with it; other continuation lines are notes. */
struct walk { const struct lines *l; size_t i; const char *key; size_t key_len; bool last_ok; };

static bool walk_next(struct walk *w, size_t *at, const char **key, size_t *key_len, const char **text)
{
    for (; w->i < w->l->n; w->i++) {
        const char *line = w->l->v[w->i];
        size_t from, len;
        if (line[0] == ' ') {
            /* Only a result tells of the thread's course; notes (what was
             * read from outside, code rewritten) do not. */
            *text = line + strspn(line, " ");
            if (!w->last_ok || strncmp(*text, "| = ", 4)) continue;
        } else {
            w->last_ok = split(line, &from, &len, text);
            if (!w->last_ok) continue;
            w->key = line + from;
            w->key_len = len;
        }
        *at = w->i++;
        *key = w->key;
        *key_len = w->key_len;
        return true;
    }
    return false;
}

/* The text of line i as walk_next gives it. */
static const char *event_text(const struct lines *l, size_t i)
{
    const char *line = l->v[i], *text;
    size_t from, len;
    if (line[0] == ' ') return line + strspn(line, " ");
    split(line, &from, &len, &text);
    return text;
}

struct thread_events { char *key; size_t *idx, n, cap, pos; };
struct threads { struct thread_events *v; size_t cap; };

static struct thread_events *thread_of(struct threads *t, const char *key, size_t len, bool add)
{
    if (!t->cap) t->v = calloc(t->cap = 1024, sizeof *t->v);
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < len; i++) h = (h ^ (unsigned char)key[i]) * 1099511628211ull;
    for (size_t i = h & (t->cap - 1), k = 0; k < t->cap; i = (i + 1) & (t->cap - 1), k++) {
        struct thread_events *e = &t->v[i];
        if (e->key && strlen(e->key) == len && !memcmp(e->key, key, len)) return e;
        if (!e->key) {
            if (!add) return NULL;
            e->key = strndup(key, len);
            return e;
        }
    }
    return NULL;       /* more threads than the table holds: not compared */
}

static void per_thread(FILE *out, const struct lines *pa, const struct lines *fb, uint64_t a, const char *label_a,
                       uint64_t b, const char *label_b, int context)
{
    struct threads t = { 0 };
    size_t at, len;
    const char *key, *text;
    struct walk wa = { .l = pa }, wb = { .l = fb };
    while (walk_next(&wa, &at, &key, &len, &text)) {
        struct thread_events *e = thread_of(&t, key, len, true);
        if (!e) continue;
        GROW(e->idx, e->n, e->cap);
        e->idx[e->n++] = at;
    }
    while (walk_next(&wb, &at, &key, &len, &text)) {
        struct thread_events *e = thread_of(&t, key, len, false);
        const char *other = NULL;
        if (e && e->pos < e->n) {
            other = event_text(pa, e->idx[e->pos]);
            if (!strcmp(other, text)) { e->pos++; continue; }
        }
        fprintf(out, "  the first thread to act otherwise: machine/thread %.*s, after %zu of its events alike;\n",
                (int)len, key, e ? e->pos : 0);
        fprintf(out, "  then %s %" PRIu64 " ran:\n    %s\n", label_a, a,
                other ? other : e ? "(no more events)" : "(no such thread)");
        fprintf(out, "  and %s %" PRIu64 " ran:\n    %s\n", label_b, b, text);
        size_t first = e && e->pos > (size_t)context ? e->pos - (size_t)context : 0;
        if (e && e->pos > 0 && context > 0) fprintf(out, "  its last events both ran:\n");
        for (size_t k = first; e && k < e->pos; k++) fprintf(out, "    %s\n", event_text(pa, e->idx[k]));
        break;
    }
    for (size_t i = 0; i < t.cap; i++) { free(t.v[i].key); free(t.v[i].idx); }
    free(t.v);
}

/* Traces longer than this are compared in global order only. */
#define PER_THREAD_MAX_EVENTS 4000000

int diverge_print(FILE *out, struct config *c, const struct run_opts *base, uint64_t a, const char *label_a,
                  uint64_t b, const char *label_b, int context)
{
    FILE *fa = traced_run(c, base, a), *fb = fa ? traced_run(c, base, b) : NULL;
    if (!fa || !fb) { if (fa) fclose(fa); return -1; }
    char **ring = calloc((size_t)context + 1, sizeof *ring);
    char *la = NULL, *lb = NULL;
    size_t ca = 0, cb = 0;
    long agree = 0, kept = 0;
    ssize_t na, nb;
    for (;;) {
        na = getline(&la, &ca, fa);
        nb = getline(&lb, &cb, fb);
        if (na <= 0 || nb <= 0 || strcmp(la, lb) != 0) break;
        agree++;
        if (context <= 0 || clock_line(la)) continue;      /* shown for context: not clock reads */
        free(ring[kept % context]);
        ring[kept++ % context] = strdup(la);
    }
    int differ = !(na <= 0 && nb <= 0);
    if (!differ) {
        fprintf(out, "  seeds %" PRIu64 " and %" PRIu64 " ran the same %ld events\n", a, b, agree);
    } else {
        fprintf(out, "  runs agree for %ld events; then %s %" PRIu64 " ran:\n    %s", agree, label_a, a,
                na > 0 ? la : "(the end of its trace)\n");
        fprintf(out, "  and %s %" PRIu64 " ran:\n    %s", label_b, b, nb > 0 ? lb : "(the end of its trace)\n");
        long first = kept > context ? kept - context : 0;
        if (kept > 0 && context > 0) fprintf(out, "  the last events both ran:\n");
        for (long i = first; i < kept && context > 0; i++) fprintf(out, "    %s", ring[i % context]);
        /* With the schedule drawn from the seed, two runs part at the first
         * choice of thread; what matters is where a thread's own course
         * changed. */
        struct lines la_all = { 0 }, lb_all = { 0 };
        if (read_lines(fa, &la_all, PER_THREAD_MAX_EVENTS) == 0 && read_lines(fb, &lb_all, PER_THREAD_MAX_EVENTS) == 0)
            per_thread(out, &la_all, &lb_all, a, label_a, b, label_b, context);
        free_lines(&la_all);
        free_lines(&lb_all);
    }
    for (int i = 0; i <= context; i++) free(ring[i]);
    free(ring);
    free(la);
    free(lb);
    fclose(fa);
    fclose(fb);
    return differ;
}
