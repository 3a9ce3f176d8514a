/* dsim shrink: reduces a failing seed's fault plan to a minimal one that
 * still fails for the same reason (ddmin over the faults that fired). */
#include "supervisor/shrink.h"
#include "base/defines.h"
#include "base/plan.h"
#include "supervisor/run.h"
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

struct probe {
    struct config *conf;
    uint64_t seed;
    enum outcome outcome;   /* the failure to keep */
    char reason[512];       /* its first line */
    int runs;
};

static void first_line(const char *s, char *out, size_t len)
{
    snprintf(out, len, "%.*s", (int)strcspn(s, "\n"), s);
}

/* Runs the seed with exactly these faults: does it fail the same way? */
static bool still_fails(struct probe *p, const struct fault_conf *f, size_t n, struct seed_result *keep)
{
    struct run_opts o = { .recent = 1, .plan = f, .nplan = n, .use_plan = true, .quiet_check = true };
    struct seed_result r;
    run_seed(p->conf, p->seed, &o, &r);
    p->runs++;
    char reason[512];
    first_line(r.reason, reason, sizeof reason);
    bool same = r.outcome == p->outcome && !strcmp(reason, p->reason);
    if (same && keep) { result_free(keep); *keep = r; }
    else result_free(&r);
    return same;
}

/* The faults of `all` picked by mask `in`, into `out`; returns the count. */
static size_t pick(const struct fault_conf *all, size_t n, const bool *in, struct fault_conf *out)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++) if (in[i]) out[k++] = all[i];
    return k;
}

/* ddmin (Zeller): try each chunk alone, then each complement, refining. */
static void ddmin(struct probe *p, const struct fault_conf *all, size_t n, bool *in, struct seed_result *best)
{
    struct fault_conf *buf = calloc(n + 1, sizeof *buf);
    bool *trial = calloc(n + 1, sizeof *trial);
    size_t granularity = 2;
    for (;;) {
        size_t live = 0, idx[4096];
        for (size_t i = 0; i < n && live < 4096; i++) if (in[i]) idx[live++] = i;
        if (live < 2) break;
        if (granularity > live) granularity = live;
        bool reduced = false;
        for (int complement = 0; complement < 2 && !reduced; complement++) {
            for (size_t c = 0; c < granularity && !reduced; c++) {
                size_t lo = live * c / granularity, hi = live * (c + 1) / granularity;
                memset(trial, 0, n * sizeof *trial);
                for (size_t j = 0; j < live; j++) trial[idx[j]] = complement ? (j < lo || j >= hi) : (j >= lo && j < hi);
                size_t k = pick(all, n, trial, buf);
                if (k == live || !still_fails(p, buf, k, best)) continue;
                memcpy(in, trial, n * sizeof *in);
                granularity = complement ? (granularity > 2 ? granularity - 1 : 2) : 2;
                reduced = true;
            }
        }
        if (!reduced) {
            if (granularity >= live) break;
            granularity = granularity * 2 < live ? granularity * 2 : live;
        }
    }
    free(buf);
    free(trial);
}

int shrink_seed(struct config *c, const char *confpath, uint64_t seed, const struct fault_conf *start,
                size_t nstart, bool use_start, const char *out_path, const char *rerun)
{
    struct run_opts o = { .recent = 1, .plan = start, .nplan = nstart, .use_plan = use_start };
    struct seed_result first;
    run_seed(c, seed, &o, &first);
    if (first.outcome == OUT_PASS) {
        printf("seed %" PRIu64 " passes: there is no failure to shrink\n", seed);
        result_free(&first);
        return 2;
    }
    struct probe p = { .conf = c, .seed = seed, .outcome = first.outcome, .runs = 0 };
    first_line(first.reason, p.reason, sizeof p.reason);
    struct fault_conf *all;
    size_t n;
    char err[1024];
    if (plan_from_json(first.plan, c, &all, &n, err, sizeof err) != 0) {
        fprintf(stderr, "dsim: %s\n", err);
        result_free(&first);
        return 2;
    }
    printf("seed %" PRIu64 " fails: %s\n  %" PRIu64 " events, %zu faults fired\n", seed, p.reason, first.steps, n);
    bool *in = calloc(n + 1, sizeof *in);
    for (size_t i = 0; i < n; i++) in[i] = true;
    struct seed_result best = { 0 };
    best.steps = first.steps;
    if (n > 0 && still_fails(&p, NULL, 0, &best)) memset(in, 0, n * sizeof *in);   /* no fault needed */
    else ddmin(&p, all, n, in, &best);
    struct fault_conf *kept = calloc(n + 1, sizeof *kept);
    size_t k = pick(all, n, in, kept);
    uint64_t steps = best.plan ? best.steps : first.steps;
    printf("shrank %" PRIu64 " events / %zu faults -> %" PRIu64 " events / %zu fault%s in %d candidate runs\n",
           first.steps, n, steps, k, k == 1 ? "" : "s", p.runs);
    char who[1024];
    for (size_t i = 0; i < n; i++)
        if (!in[i])
            printf("  removed %s (%s of %s at %.3fs)\n", all[i].name, fault_kind_name(all[i].kind),
                   fault_targets(&all[i], who, sizeof who), (double)all[i].at_ns / 1e9);
    char *json = plan_to_json(kept, k);
    printf("minimal plan:\n%s\n", json);
    FILE *f = fopen(out_path, "we");
    int status = 0;
    if (!f || fprintf(f, "%s\n", json) < 0 || fclose(f)) {
        fprintf(stderr, "dsim: cannot write %s\n", out_path);
        status = 2;
    } else {
        char *qconf = shell_quote(confpath), *qout = shell_quote(out_path);
        printf("written to %s\nreplay: dsim replay %s %" PRIu64 " --plan %s%s\n", out_path, qconf, seed, qout, rerun);
        free(qconf);
        free(qout);
    }
    free(json);
    free(kept);
    free(in);
    plan_free(all, n);
    result_free(&first);
    result_free(&best);
    return status;
}
