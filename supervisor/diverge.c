#include "supervisor/diverge.h"
#include "supervisor/run.h"
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
    struct run_result r;
    run_seed(c, seed, &o, &r);
    run_result_free(&r);
    rewind(f);
    return f;
}

int diverge_print(FILE *out, struct config *c, const struct run_opts *base, uint64_t a, const char *label_a,
                  uint64_t b, const char *label_b, int context)
{
    FILE *fa = traced_run(c, base, a), *fb = fa ? traced_run(c, base, b) : NULL;
    if (!fa || !fb) { if (fa) fclose(fa); return -1; }
    char **ring = calloc((size_t)context + 1, sizeof *ring);
    char *la = NULL, *lb = NULL;
    size_t ca = 0, cb = 0;
    long agree = 0;
    ssize_t na, nb;
    for (;;) {
        na = getline(&la, &ca, fa);
        nb = getline(&lb, &cb, fb);
        if (na <= 0 || nb <= 0 || strcmp(la, lb) != 0) break;
        if (context > 0) { free(ring[agree % context]); ring[agree % context] = strdup(la); }
        agree++;
    }
    int differ = !(na <= 0 && nb <= 0);
    if (!differ) {
        fprintf(out, "  seeds %" PRIu64 " and %" PRIu64 " ran the same %ld events\n", a, b, agree);
    } else {
        fprintf(out, "  runs agree for %ld events; then %s %" PRIu64 " ran:\n    %s", agree, label_a, a,
                na > 0 ? la : "(the end of its trace)\n");
        fprintf(out, "  and %s %" PRIu64 " ran:\n    %s", label_b, b, nb > 0 ? lb : "(the end of its trace)\n");
        long first = agree > context ? agree - context : 0;
        if (agree > 0 && context > 0) fprintf(out, "  the last events both ran:\n");
        for (long i = first; i < agree && context > 0; i++) fprintf(out, "    %s", ring[i % context]);
    }
    for (int i = 0; i <= context; i++) free(ring[i]);
    free(ring);
    free(la);
    free(lb);
    fclose(fa);
    fclose(fb);
    return differ;
}
