/* --shard I/N and the CI systems' variables: see shard.h. */
#include "base/shard.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A whole decimal number of at most 9 digits (no sign, no blank). */
static bool number(const char *s, const char *end, unsigned long *out)
{
    if (!s || s == end || end - s > 9) return false;
    unsigned long v = 0;
    for (const char *p = s; p < end; p++) {
        if (*p < '0' || *p > '9') return false;
        v = v * 10 + (unsigned long)(*p - '0');
    }
    *out = v;
    return true;
}

static bool whole(const char *s, unsigned long *out) { return s && number(s, s + strlen(s), out); }

/* Each system's index, its base, and its count. */
struct ci_vars { const char *index, *count, *min; unsigned long base; const char *name; };
static const struct ci_vars ci[] = {
    { "CI_NODE_INDEX", "CI_NODE_TOTAL", NULL, 1, "GitLab's CI_NODE_INDEX (1-based)/CI_NODE_TOTAL" },
    /* Slurm arrays start where --array says: SLURM_ARRAY_TASK_MIN. */
    { "SLURM_ARRAY_TASK_ID", "SLURM_ARRAY_TASK_COUNT", "SLURM_ARRAY_TASK_MIN", 0,
      "Slurm's SLURM_ARRAY_TASK_ID (from SLURM_ARRAY_TASK_MIN)/SLURM_ARRAY_TASK_COUNT" },
    { "JOB_COMPLETION_INDEX", "DSIM_SHARDS", NULL, 0, "Kubernetes' JOB_COMPLETION_INDEX (0-based)/DSIM_SHARDS" },
};

int shard_find(const char *opt, const char *(*env)(const char *), struct shard *s, char *err, size_t errlen)
{
    unsigned long i, n, base = 1;
    memset(s, 0, sizeof *s);
    if (opt) {
        const char *slash = strchr(opt, '/');
        s->source = "--shard";
        if (!slash || !number(opt, slash, &i) || !whole(slash + 1, &n) || n == 0 || i < 1 || i > n) {
            snprintf(err, errlen, "bad --shard %s (use I/N with 1 <= I <= N: --shard 1/3, 2/3, 3/3)", opt);
            return -1;
        }
        s->index = i - 1;
        s->count = n;
        return 1;
    }
    for (size_t k = 0; k < sizeof ci / sizeof *ci; k++) {
        const char *index = env(ci[k].index), *count = env(ci[k].count);
        if (!index) continue;
        s->source = ci[k].name;
        if (!count) {
            /* An index without its count would run the whole sweep on every
             * runner: say so rather than run it N times. */
            snprintf(err, errlen, "%s is set but %s is not: cannot tell the shard (set both, or --shard I/N)",
                     ci[k].index, ci[k].count);
            return -1;
        }
        base = ci[k].base;
        if (ci[k].min && env(ci[k].min) && !whole(env(ci[k].min), &base)) base = ~0UL;
        if (!whole(index, &i) || !whole(count, &n) || base == ~0UL || n == 0 || i < base) {
            snprintf(err, errlen, "bad shard from %s: %s=%s, %s=%s%s%s", ci[k].name, ci[k].index, index, ci[k].count,
                     count, ci[k].min && env(ci[k].min) ? ", SLURM_ARRAY_TASK_MIN=" : "",
                     ci[k].min && env(ci[k].min) ? env(ci[k].min) : "");
            return -1;
        }
        unsigned long step = 1;         /* Slurm's --array=1-9:2 */
        const char *steps = ci[k].min ? env("SLURM_ARRAY_TASK_STEP") : NULL;
        if ((steps && (!whole(steps, &step) || step == 0 || (i - base) % step)) || (i - base) / step >= n) {
            snprintf(err, errlen, "bad shard from %s: %s=%s is not one of %s=%s tasks%s%s", ci[k].name, ci[k].index,
                     index, ci[k].count, count, steps ? " with step " : "", steps ? steps : "");
            return -1;
        }
        s->index = (i - base) / step;
        s->count = n;
        return 1;
    }
    return 0;
}
