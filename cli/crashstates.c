/* Enumerates the states by re-running the seed: every run is the same up
 * to the chosen crash, which takes prescribed decisions (crash_disk.c);
 * the decisions it met and how many options each had give the next path of
 * a depth-first walk over the decision tree. A tree with more paths than
 * --max (a large file torn at any sector) is sampled instead: each decision
 * drawn from a stream of the seed, so the sample is the same every time.
 * Paths that leave a disk already seen stop at the crash. */
#include "cli/crashstates.h"
#include "cli/cli.h"
#include "base/plan.h"
#include "supervisor/run.h"
#include "supervisor/faults.h"
#include "base/xalloc.h"
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int crash_state_parse(const char *s, struct crash_pick *p, unsigned *buf, size_t max)
{
    char *end;
    long crash = strtol(s, &end, 10);
    if (crash < 1 || *end != ':') return -1;
    memset(p, 0, sizeof *p);
    p->crash = (int)crash;
    p->choices = buf;
    for (s = end + 1; *s && p->nchoices < max; s = *end ? end + 1 : end) {
        unsigned long v = strtoul(s, &end, 10);
        if (end == s || (*end && *end != '.')) return -1;
        buf[p->nchoices++] = (unsigned)v;
    }
    return *s ? -1 : 0;
}

static void format_state(const struct crash_pick *p, char *out, size_t len)
{
    size_t n = (size_t)snprintf(out, len, "%d:", p->crash);
    for (size_t i = 0; i < p->nused && n < len; i++) n += (size_t)snprintf(out + n, len - n, "%s%u", i ? "." : "", p->used[i]);
}

/* The next path after p's, depth first; false when the walk is done. */
static bool next_path(const struct crash_pick *p, unsigned *choices, size_t *n)
{
    for (size_t i = p->nused; i-- > 0;) {
        if (p->used[i] + 1 >= p->arity[i]) continue;
        for (size_t j = 0; j < i; j++) choices[j] = p->used[j];
        choices[i] = p->used[i] + 1;
        *n = i + 1;
        return true;
    }
    return false;
}

/* How many decision paths the tree has, judged from one path: the product
 * of its decisions' options (later decisions may have others). */
static double tree_size(const struct crash_pick *p)
{
    double n = 1;
    for (size_t i = 0; i < p->nused; i++) n *= p->arity[i];
    return n;
}

struct walk {
    struct config *c;
    uint64_t seed;
    const struct fault_conf *faults;    /* a plan (--plan, or --at's), or NULL: the config's */
    size_t nfaults;
    bool use_plan;
    uint64_t (*seen)[2];
    size_t nseen;
};

static void run_state(struct walk *wk, struct crash_pick *p, struct seed_result *r)
{
    struct run_opts ro = { .recent = 1, .plan = wk->faults, .nplan = wk->nfaults, .use_plan = wk->use_plan,
                           .pick = p, .quiet_check = true };
    p->seen = wk->seen;
    p->nseen = wk->nseen;
    run_seed(wk->c, wk->seed, &ro, r);
}

int cmd_crash_states(int argc, char **argv)
{
    struct opts o = { 0 };
    if (argc == 2 && !strcmp(argv[1], "--help")) { command_help("crash-states"); return 0; }
    if (argc < 3 || argv[1][0] == '-') return usage_error("%s: usage: dsim crash-states CONF SEED", "crash-states");
    uint64_t seed;
    if (parse_seed_arg(argv[2], &seed)) return usage_error("bad seed %s", argv[2]);
    if (parse_opts(argc - 2, argv + 2, &o, "cmPaMOTUD")) return EXIT_USAGE;
    if (optind + 2 < argc) return usage_error("unexpected argument %s", argv[optind + 2]);
    struct config *c = load_with_plan(argv[1], &o);
    if (!c) return EXIT_USAGE;
    int max = o.max_states ? o.max_states : 64, status = 0, crashes = 0, target = 0;
    struct walk wk = { c, seed, o.faults, o.nfaults, o.plan != NULL, NULL, 0 };
    struct fault_conf *injected = NULL;
    uint64_t at = 0;
    char planfile[4096] = "";
    struct seed_result r;
    if (o.at || o.machine) {
        /* A crash of its own: the seed's faults and this one, as a plan. */
        if (!o.at || !o.machine || o.plan || o.crash) {
            status = usage_error("%s: --at and --machine go together, without --crash or --plan", "crash-states");
            goto out;
        }
        if (parse_duration(o.at, &at) || at >= c->duration_ns) {
            status = usage_error("bad --at %s (a duration within the simulation)", o.at);
            goto out;
        }
        bool known = false;
        for (size_t i = 0; i < c->nmachines; i++) known |= !strcmp(c->machines[i].name, o.machine);
        if (!known) {
            status = usage_error("no machine %s in the configuration", o.machine);
            goto out;
        }
        injected = faults_for_run(c, seed, &wk.nfaults);
        GROW_ONE(injected, wk.nfaults);
        injected[wk.nfaults++] = (struct fault_conf){ .name = strdup("crash-states"), .kind = FAULT_CRASH,
                                                      .at_ns = at, .machine = strdup(o.machine),
                                                      .duration_ns = 100000000, .has_duration = true };
        wk.faults = injected;
        wk.use_plan = true;
        if (o.plan_out) {
            snprintf(planfile, sizeof planfile, "%s", o.plan_out);
            warn_if_seen(c, "--plan-out", o.plan_out);
        } else {
            scratch_path(planfile, sizeof planfile, "dsim-crash-plan", seed);
        }
        char *json = plan_to_json(injected, wk.nfaults);
        FILE *f = fopen(planfile, "we");
        bool ok = f && json && fprintf(f, "%s\n", json) >= 0;
        if (f && fclose(f) != 0) ok = false;
        free(json);
        if (!ok) {
            fprintf(stderr, "dsim: cannot write %s\n", planfile);
            status = EXIT_USAGE;
            goto out;
        }
    } else {
        /* The seed as it runs: how many crashes, and which to explore. */
        struct run_opts ro = { .recent = 1, .plan = o.faults, .nplan = o.nfaults, .use_plan = o.plan != NULL,
                               .quiet_check = true };
        run_seed(c, seed, &ro, &r);
        crashes = r.ncrashes;
        target = o.crash ? o.crash : crashes;
        result_free(&r);
        if (crashes == 0 || target > crashes) {
            fprintf(stderr, "dsim: seed %" PRIu64 " of %s has %d crash%s%s\n", seed, argv[1], crashes,
                    crashes == 1 ? "" : "es", crashes ? "" : " (add a crash [fault] or [chaos] crash =, or use --at)");
            status = EXIT_USAGE;
            goto out;
        }
    }

    wk.seen = calloc((size_t)max + 1, sizeof *wk.seen);
    unsigned choices[CRASH_PICK_MAX];
    size_t nchoices = 0;
    int states = 0, fails = 0, same = 0, runs = 0;
    char first_fail[CRASH_PICK_MAX * 4 + 16] = "", state[sizeof first_fail];
    bool more = true, sampling = false;
    struct prng sampler;
    prng_init(&sampler, seed, "crash-states");
    while (more && runs < max && !dsim_interrupted) {
        struct crash_pick p = { .crash = target, .choices = choices, .nchoices = nchoices,
                                .sampler = sampling ? &sampler : NULL, .match_machine = injected ? o.machine : NULL,
                                .match_at = at };
        run_state(&wk, &p, &r);
        runs++;
        if (runs == 1 && !p.reached) {
            result_free(&r);
            fprintf(stderr, "dsim: machine %s was not running at %s\n", o.machine, o.at);
            status = EXIT_USAGE;
            goto done;
        }
        if (runs == 1 && injected)
            printf("seed %" PRIu64 ": a crash of machine %s at %.9fs (the plan in %s)\n", seed, p.machine,
                   (double)p.at_ns / 1e9, planfile);
        else if (runs == 1)
            printf("seed %" PRIu64 ": crash %d of %d, machine %s at %.9fs\n", seed, target, crashes, p.machine,
                   (double)p.at_ns / 1e9);
        if (!sampling && tree_size(&p) > max) {
            sampling = true;
            printf("(the decision tree has about %.3g paths: the remaining runs sample it)\n", tree_size(&p));
        }
        if (p.duplicate) {
            same++;
        } else {
            format_state(&p, state, sizeof state);
            memcpy(wk.seen[wk.nseen++], p.disk_hash, sizeof p.disk_hash);
            states++;
            if (r.outcome == OUT_PASS) {
                printf("state %d: %s: pass\n", states, p.desc[0] ? p.desc : "nothing was lost");
            } else {
                fails++;
                if (!first_fail[0]) snprintf(first_fail, sizeof first_fail, "%s", state);
                printf("state %d: %s: FAILED: %.*s\n", states, p.desc[0] ? p.desc : "nothing was lost",
                       (int)strcspn(r.reason, "\n"), r.reason);
            }
        }
        result_free(&r);
        nchoices = 0;
        more = sampling || next_path(&p, choices, &nchoices);
    }
    if (same) printf("(%d more decision paths left a disk already listed)\n", same);
    if (more && !sampling) printf("(stopped after %d runs, --max; more states remain)\n", runs);
    if (first_fail[0]) {
        char *rerun = rerun_options(&o), *qconf = shell_quote(argv[1]), *qplan = shell_quote(planfile);
        printf("replay the first failing state: dsim replay %s %" PRIu64 "%s%s%s --crash-state %s\n", qconf, seed,
               injected ? " --plan " : "", injected ? qplan : "", rerun, first_fail);
        free(rerun);
        free(qconf);
        free(qplan);
    }
    printf("%d crash states: %d pass, %d fail\n", states, states - fails, fails);
    status = fails ? 1 : 0;
done:
    free(wk.seen);
out:
    if (injected) plan_free(injected, wk.nfaults);
    plan_free(o.faults, o.nfaults);
    defines_free(&o.defines);
    config_free(c);
    return dsim_interrupted ? interrupted_status() : status;
}
