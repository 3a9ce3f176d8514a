#include "supervisor/explain.h"
#include "supervisor/watch.h"
#include "base/xalloc.h"
#include "trace/tracecmp.h"
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#define GROUPS_COMPARED 4       /* pairs are looked for among the first hashes */
#define READS_SHOWN 8           /* changed outside reads printed */
#define LAST_READS 3            /* the parting machine's last outside reads printed */
#define OUTPUT_MAX (64u << 20)  /* output compared, per stream */

/* The runs that gave one hash: the first one's trace and outputs, and the
 * stacks any of them took (runs of one hash made the same events). */
struct group {
    char hash[33];
    int first_run;
    char outcome[16], reason[200];  /* the first run's, its first line */
    FILE *trace;
    char outdir[4200];
    struct stack_at *stacks;
    size_t nstacks;
};

struct explain {
    struct config *c;
    struct run_opts base;
    uint64_t seed;
    char dir[4096];             /* the runs' kept outputs */
    struct group *g;
    size_t ng;
    int runs;
};

static int rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb, (void)flag, (void)ftw;
    return remove(path);
}

static void rm_tree(const char *path)
{
    if (*path) nftw(path, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

struct explain *explain_new(struct config *c, const struct run_opts *base, uint64_t seed)
{
    struct explain *e = calloc(1, sizeof *e);
    if (!e) abort();
    e->c = c;
    e->seed = seed;
    if (base) {
        e->base.plan = base->plan;
        e->base.nplan = base->nplan;
        e->base.use_plan = base->use_plan;
        e->base.quiet_check = base->quiet_check;
        e->base.skip_check = base->skip_check;
    }
    /* Under the runs' own parent, which machines see empty: a name they
     * could list would differ from run to run. */
    const char *tmp = getenv("TMPDIR");
    snprintf(e->dir, sizeof e->dir, "%s/%s", tmp && *tmp ? tmp : "/tmp", RUNS_DIR);
    if (mkdir(e->dir, 01777) == 0) chmod(e->dir, 01777);
    strcat(e->dir, "/dsim-verify.XXXXXX");
    if (!mkdtemp(e->dir)) e->dir[0] = 0;
    return e;
}

static void copy_trace(FILE *t, const char *path)
{
    gzFile g = gzopen(path, "wb1");
    if (!g) { fprintf(stderr, "dsim: cannot write %s: %s\n", path, strerror(errno)); return; }
    char buf[65536];
    size_t n;
    fflush(t);
    rewind(t);
    while ((n = fread(buf, 1, sizeof buf, t)) > 0) gzwrite(g, buf, (unsigned)n);
    gzclose(g);
}

static void free_stacks(struct stack_at *s, size_t n)
{
    for (size_t i = 0; i < n; i++) free(s[i].text);
    free(s);
}

int explain_run(struct explain *e, struct seed_result *r, const char *trace_path)
{
    FILE *t = tmpfile();
    if (!t) return -1;
    char outdir[4200];
    snprintf(outdir, sizeof outdir, "%s/run-%d", e->dir, e->runs + 1);
    FILE **refs = calloc(e->ng + 1, sizeof *refs);
    for (size_t i = 0; i < e->ng; i++) refs[i] = e->g[i].trace;
    struct watch wt;
    watch_init(&wt, refs, e->ng);
    free(refs);
    struct run_opts o = e->base;
    o.trace_out = t;
    o.trace_results = true;
    o.results_of_reads = true;
    o.watch = &wt;
    o.keep_dir = e->dir[0] ? outdir : NULL;
    run_seed(e->c, e->seed, &o, r);
    watch_done(&wt);
    e->runs++;
    fflush(t);
    if (trace_path) copy_trace(t, trace_path);
    for (size_t i = 0; i < e->ng; i++) {
        struct group *g = &e->g[i];
        if (strcmp(g->hash, r->hash)) continue;
        g->stacks = xrealloc(g->stacks, (g->nstacks + wt.nstacks) * sizeof *g->stacks);
        memcpy(g->stacks + g->nstacks, wt.stacks, wt.nstacks * sizeof *wt.stacks);
        g->nstacks += wt.nstacks;
        free(wt.stacks);
        fclose(t);
        rm_tree(o.keep_dir ? outdir : "");
        return 0;
    }
    GROW_ONE(e->g, e->ng);
    struct group *g = &e->g[e->ng++];
    memset(g, 0, sizeof *g);
    snprintf(g->hash, sizeof g->hash, "%s", r->hash);
    snprintf(g->outcome, sizeof g->outcome, "%s", outcome_name(r->outcome));
    snprintf(g->reason, sizeof g->reason, "%.*s", (int)strcspn(r->reason, "\n"), r->reason);
    g->first_run = e->runs;
    g->trace = t;
    snprintf(g->outdir, sizeof g->outdir, "%s", o.keep_dir ? outdir : "");
    g->stacks = wt.stacks;
    g->nstacks = wt.nstacks;
    return 0;
}

size_t explain_hashes(const struct explain *e) { return e->ng; }

const char *explain_hash(const struct explain *e, size_t i) { return i < e->ng ? e->g[i].hash : ""; }

void explain_free(struct explain *e)
{
    if (!e) return;
    for (size_t i = 0; i < e->ng; i++) {
        fclose(e->g[i].trace);
        free_stacks(e->g[i].stacks, e->g[i].nstacks);
    }
    free(e->g);
    rm_tree(e->dir);
    free(e);
}

/* ---- choosing the pair to explain ---- */

static const struct stack_at *stack_for(const struct group *g, uint64_t index)
{
    for (size_t i = 0; i < g->nstacks; i++)
        if (g->stacks[i].index == index) return &g->stacks[i];
    return NULL;
}

/* Whether an event was made by a thread (not the run's "end"). */
static bool by_thread(const char *line)
{
    const char *machine;
    return line && trace_line_text(line, &machine) && strncmp(machine, "- ", 2);
}

/* Both runs' stacks at their parting event were taken (or none is
 * needed: the events are the same, a trace ended there, or it is the
 * run's end). */
static bool complete(const struct group *a, const struct group *b, const struct tc_diff *d)
{
    if (!d->parted) return true;
    return (!by_thread(d->side[0].line) || stack_for(a, d->index)) &&
           (!by_thread(d->side[1].line) || stack_for(b, d->index));
}

/* The first pair of hashes, in run order, whose explanation is complete;
 * else the first pair. False if there is no pair (or no trace to read). */
static bool choose(struct explain *e, size_t *pa, size_t *pb, struct tc_diff *d)
{
    size_t n = e->ng < GROUPS_COMPARED ? e->ng : GROUPS_COMPARED;
    for (size_t a = 0; a < n; a++)
        for (size_t b = a + 1; b < n; b++) {
            if (tracecmp(e->g[a].trace, e->g[b].trace, d)) return false;
            if (complete(&e->g[a], &e->g[b], d)) { *pa = a; *pb = b; return true; }
            tracecmp_free(d);
        }
    if (n < 2 || tracecmp(e->g[0].trace, e->g[1].trace, d)) return false;
    *pa = 0;
    *pb = 1;
    return true;
}

bool explain_wants_more(struct explain *e)
{
    size_t a, b;
    struct tc_diff d;
    if (e->ng < 2 || !choose(e, &a, &b, &d)) return false;
    bool more = !complete(&e->g[a], &e->g[b], &d);
    tracecmp_free(&d);
    return more;
}

/* ---- printing ---- */

static void print_stack(FILE *out, const struct group *g, uint64_t index, const char *line, const char *label)
{
    if (!by_thread(line)) return;           /* the run's end: no thread */
    const struct stack_at *s = stack_for(g, index);
    if (!s) {
        fprintf(out, "  %s %d: no stack (a run takes stacks only where it parts from an earlier one)\n", label,
                g->first_run);
        return;
    }
    if (!s->text) {
        fprintf(out, "  %s %d: no stack (no thread of it was stopped at this event)\n", label, g->first_run);
        return;
    }
    fprintf(out, "  stack of %s in %s %d:\n%s", s->who, label, g->first_run, s->text);
}

static void print_event(FILE *out, const char *label, int run, const char *line, const char *result)
{
    fprintf(out, "  %s %d: %s%s%s\n", label, run, line ? line : "(its trace ended)", result ? "   | " : "",
            result ? result : "");
}

static bool uncomparable(const struct outside_read *r)
{
    return !strncmp(r->desc, "a /proc ", 8) || !strncmp(r->desc, "a /sys ", 7) || strstr(r->desc, " device ");
}

/* The host files read before the parting point that changed between the
 * runs; if none, the host's /proc, /sys and device files read (their
 * contents are not compared), or else the last reads from outside. */
static void print_reads(FILE *out, const struct tc_diff *d, const char *label, int ra, int rb, const char *machine)
{
    size_t i0[READS_SHOWN], i1[READS_SHOWN];
    size_t n = tracecmp_changed_reads(d, i0, i1, READS_SHOWN);
    const struct tc_side *a = &d->side[0], *b = &d->side[1];
    const char *before = d->parted ? " before it" : "";
    if (n) {
        fprintf(out, "  read from outside the simulation%s, and not the same in both runs:\n", before);
        for (size_t k = 0; k < n && k < READS_SHOWN; k++) {
            const struct outside_read *x = &a->reads[i0[k]];
            bool again = false;             /* an open and an fstat of one file: once */
            for (size_t j = 0; j < k; j++) again |= !strcmp(a->reads[i0[j]].path, x->path);
            if (again) continue;
            fprintf(out, "    machine %s thread %d read %s\n      %s %d: %s\n      %s %d: %s\n", x->machine, x->tid,
                    x->path, label, ra, x->desc, label, rb,
                    i1[k] == SIZE_MAX ? "(not read from outside)" : b->reads[i1[k]].desc);
        }
        if (n > READS_SHOWN) fprintf(out, "    (and %zu more)\n", n - READS_SHOWN);
        return;
    }
    fprintf(out, "  no host file read%s differed between the runs\n", before);
    /* The host's kernel files, latest first, each path once. */
    size_t shown = 0, last[LAST_READS];
    for (size_t i = a->nreads; i-- > 0 && shown < LAST_READS;) {
        const struct outside_read *r = &a->reads[i];
        if (!uncomparable(r) || (machine && strcmp(r->machine, machine))) continue;
        bool dup = false;
        for (size_t k = 0; k < shown; k++) dup |= !strcmp(a->reads[last[k]].path, r->path);
        if (!dup) last[shown++] = i;
    }
    if (shown) {
        fprintf(out, "  read from the host's kernel%s%s%s (dsim cannot tell whether it differed):\n",
                machine ? " by machine " : "", machine ? machine : "", before);
        for (size_t k = 0; k < shown; k++) fprintf(out, "    %s: %s\n", a->reads[last[k]].path, a->reads[last[k]].desc);
        return;
    }
    for (size_t i = a->nreads; i-- > 0 && shown < LAST_READS;)
        if (!machine || !strcmp(a->reads[i].machine, machine)) last[shown++] = i;
    if (!shown) return;
    fprintf(out, "  the last reads from outside%s%s%s, in %s %d:\n", machine ? " by machine " : "",
            machine ? machine : "", before, label, ra);
    while (shown-- > 0) fprintf(out, "    %s: %s\n", a->reads[last[shown]].path, a->reads[last[shown]].desc);
}

static char *slurp(const char *path, size_t *n)
{
    *n = 0;
    FILE *f = fopen(path, "re");
    if (!f) return NULL;
    char *buf = malloc(OUTPUT_MAX);
    if (buf) *n = fread(buf, 1, OUTPUT_MAX, f);
    fclose(f);
    return buf;
}

/* Where the machines' outputs differ (what the hash folds in after the
 * events); true if one does. */
static bool print_outputs(FILE *out, const struct explain *e, const struct group *a, const struct group *b,
                          const char *label)
{
    bool any = false;
    for (size_t m = 0; m < e->c->nmachines && *a->outdir && *b->outdir; m++)
        for (int k = 0; k < 2; k++) {
            char pa[4400], pb[4400], la[512], lb[512];
            const char *name = e->c->machines[m].name, *stream = k ? "stderr" : "stdout";
            snprintf(pa, sizeof pa, "%s/%s.%s", a->outdir, name, stream);
            snprintf(pb, sizeof pb, "%s/%s.%s", b->outdir, name, stream);
            size_t na, nb;
            char *ba = slurp(pa, &na), *bb = slurp(pb, &nb);
            long at = bytes_first_difference(ba ? ba : "", na, bb ? bb : "", nb);
            if (at >= 0) {
                bytes_line_at(ba ? ba : "", na, (size_t)at, la, sizeof la);
                bytes_line_at(bb ? bb : "", nb, (size_t)at, lb, sizeof lb);
                fprintf(out, "  machine %s's %s differs from byte %ld on; the line there:\n    %s %d: %s\n    %s %d: %s\n",
                        name, stream, at, label, a->first_run, la, label, b->first_run, lb);
                any = true;
            }
            free(ba);
            free(bb);
        }
    return any;
}

/* Runs that ended otherwise than the first: why (an internal error of
 * dsim's, a time limit...). */
static void print_endings(const struct explain *e, FILE *out, const char *label)
{
    bool first_shown = false;
    for (size_t i = 1; i < e->ng; i++) {
        const struct group *g0 = &e->g[0], *g = &e->g[i];
        if (!strcmp(g->outcome, g0->outcome) && !strcmp(g->reason, g0->reason)) continue;
        if (!first_shown) fprintf(out, "%s %d ended as %s%s%s\n", label, g0->first_run, g0->outcome,
                                  *g0->reason ? ": " : "", g0->reason);
        first_shown = true;
        fprintf(out, "%s %d ended as %s%s%s\n", label, g->first_run, g->outcome, *g->reason ? ": " : "", g->reason);
    }
}

void explain_print(struct explain *e, FILE *out, const char *label)
{
    size_t a, b;
    struct tc_diff d;
    if (e->ng < 2 || !choose(e, &a, &b, &d)) return;
    print_endings(e, out, label);
    const struct group *ga = &e->g[a], *gb = &e->g[b];
    int ra = ga->first_run, rb = gb->first_run;
    char machine[64] = "";
    if (d.parted) {
        fprintf(out, "where %ss %d and %d parted: at their event %" PRIu64 " (the %" PRIu64 " before it are the same)\n",
                label, ra, rb, d.index + 1, d.index);
        print_event(out, label, ra, d.side[0].line, d.side[0].result);
        print_event(out, label, rb, d.side[1].line, d.side[1].result);
        const char *line = d.side[0].line ? d.side[0].line : d.side[1].line, *m;
        if (line && trace_line_text(line, &m) && strncmp(m, "- ", 2))
            snprintf(machine, sizeof machine, "%.*s", (int)strcspn(m, " "), m);
        print_stack(out, ga, d.index, d.side[0].line, label);
        print_stack(out, gb, d.index, d.side[1].line, label);
        if (d.ncontext) fprintf(out, "  the events before it, in both runs:\n");
        for (size_t i = 0; i < d.ncontext; i++) fprintf(out, "    %s\n", d.context[i]);
        /* Parted only at their ends: the machines did the same; what they
         * printed may not be. */
        if (!by_thread(d.side[0].line) && !by_thread(d.side[1].line)) print_outputs(out, e, ga, gb, label);
    } else {
        fprintf(out, "%ss %d and %d made the same %" PRIu64 " events; the hashes differ in what the machines printed:\n",
                label, ra, rb, d.side[0].events);
        if (!print_outputs(out, e, ga, gb, label)) fprintf(out, "  (the outputs kept are the same)\n");
    }
    if (d.result_differs)
        fprintf(out, "  %sa call returned otherwise in the two runs (results are not hashed):\n    %s\n"
                     "      %s %d: %s\n      %s %d: %s\n",
                d.parted ? "before it, " : "", d.result_event, label, ra, d.result_note[0], label, rb, d.result_note[1]);
    print_reads(out, &d, label, ra, rb, *machine ? machine : NULL);
    tracecmp_free(&d);
}

/* ---- a sweep's seed that did not replay ---- */

#define REPORT_RUNS 4

/* Copies text into m with every line indented. */
static void indented(FILE *m, const char *text, const char *indent)
{
    for (const char *p = text; *p;) {
        size_t n = strcspn(p, "\n");
        fprintf(m, "%s%.*s\n", indent, (int)n, p);
        p += n + (p[n] == '\n');
    }
}

char *explain_report(struct config *c, const struct run_opts *base, uint64_t seed, const char *first,
                     const struct seed_result *again)
{
    char *text = NULL, *where = NULL;
    size_t len = 0, wlen = 0;
    FILE *m = open_memstream(&text, &len);
    if (!m) return NULL;
    fprintf(m, "  the sweep's run had trace hash %s; a re-run had %s (%s)\n", first, again->hash,
            outcome_name(again->outcome));
    fprintf(m, "  runs of it made to see where they part:\n");
    struct explain *e = explain_new(c, base, seed);
    for (int i = 1; i <= REPORT_RUNS && !dsim_interrupted; i++) {
        struct seed_result r;
        if (explain_run(e, &r, NULL)) break;
        fprintf(m, "    run %d: %s %s\n", i, r.hash, outcome_name(r.outcome));
        result_free(&r);
        if (i >= 2 && explain_hashes(e) > 1 && !explain_wants_more(e)) break;
    }
    FILE *w = open_memstream(&where, &wlen);
    if (w && explain_hashes(e) > 1) explain_print(e, w, "run");
    else if (w) fprintf(w, "those runs all had trace hash %s: the difference did not come back\n", explain_hash(e, 0));
    if (w) {
        fclose(w);
        indented(m, where, "  ");
    }
    free(where);
    explain_free(e);
    fclose(m);
    return text;
}
