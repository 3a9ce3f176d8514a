/* The commands that run seeds: run (a sweep), verify, replay and exec. */
#include "cli/cli.h"
#include "cli/crashstates.h"
#include "supervisor/explain.h"
#include "base/sample.h"
#include "base/shard.h"
#include "supervisor/sweep.h"
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The command that replays a failing seed exactly, for its report. */
static void set_replay(struct seed_result *r, const char *conf, const struct opts *o)
{
    char *rerun = rerun_options(o), *qconf = shell_quote(conf), *qstate = o->crash_state ? shell_quote(o->crash_state) : NULL;
    free(r->replay);
    if (asprintf(&r->replay, "dsim replay %s %" PRIu64 "%s%s%s", qconf, r->seed, rerun, qstate ? " --crash-state " : "",
                 qstate ? qstate : "") < 0)
        r->replay = NULL;
    free(rerun);
    free(qconf);
    free(qstate);
}

/* ---- subcommands ---- */


static int one_seed(const char *confpath, struct config *c, uint64_t seed, const struct opts *o,
                    struct seed_result *r, bool keep)
{
    char dir[4096];
    struct run_opts ro = { 0 };
    result_init(r);
    ro.stacks = o->stacks;
    ro.plan = o->faults;
    ro.nplan = o->nfaults;
    ro.use_plan = o->plan != NULL;
    struct crash_pick pick;
    unsigned choices[CRASH_PICK_MAX];
    if (o->crash_state) {
        if (crash_state_parse(o->crash_state, &pick, choices, CRASH_PICK_MAX))
            return usage_error("bad --crash-state %s (use C:D.D..., as dsim crash-states prints)", o->crash_state);
        ro.pick = &pick;
    }
    ro.trace_out = open_trace(o->trace);
    ro.trace_results = true;
    if (o->trace && !ro.trace_out) return EXIT_USAGE;
    if (keep && o->output) {
        mkdir(o->output, 0755);
        snprintf(dir, sizeof dir, "%s/seed-%" PRIu64, o->output, seed);
        ro.keep_dir = dir;
    }
    char *rerun = rerun_options(o);
    ro.rerun = rerun;
    run_seed(c, seed, &ro, r);
    free(rerun);
    if (ro.trace_out) fclose(ro.trace_out);
    if (o->plan_out) {
        FILE *f = fopen(o->plan_out, "we");
        if (!f || fprintf(f, "%s\n", r->plan) < 0 || fclose(f)) {
            fprintf(stderr, "dsim: cannot write %s: %s\n", o->plan_out, strerror(errno));
            return EXIT_USAGE;
        }
    }
    return r->outcome == OUT_PASS ? 0 : 1;
}

static const char *getenv_const(const char *name) { return getenv(name); }

int cmd_run(int argc, char **argv)
{
    struct opts o = { 0 };
    if (argc < 2 || argv[1][0] == '-') return usage_error("%s: missing CONF", "run");
    const char *confpath = argv[1];
    if (parse_opts(argc - 1, argv + 1, &o, "stojkRJCSPTUVDW")) return EXIT_USAGE;
    if (o.warm && strcmp(o.warm, "snapshot") && strcmp(o.warm, "cold"))
        return usage_error("bad --warm %s (use snapshot or cold)", o.warm);
    if (optind + 1 < argc) return usage_error("unexpected argument %s", argv[optind + 1]);
    struct seeds s = { 0 };
    if (!o.seeds) return usage_error("%s: --seeds is required", "run");
    if (parse_seeds(o.seeds, &s)) return usage_error("bad --seeds %s", o.seeds);
    /* The sample is the whole sweep's, chosen before sharding, so that the
     * shards' samples make up the unsharded sweep's. */
    bool *sampled = NULL;
    if (o.verify_sample) {
        struct sample_spec spec;
        if (sample_parse(o.verify_sample, &spec))
            return usage_error("bad --verify-sample %s (use a percentage such as 5%% or a count)", o.verify_sample);
        if (o.trace) return usage_error("%s: --verify-sample is for a sweep, not --trace", "run");
        sampled = calloc(s.n, sizeof *sampled);
        sample_choose(s.v, s.n, sample_size(&spec, s.n), sampled);
    }
    struct shard sh;
    char why[512];
    int sharded = shard_find(o.shard, getenv_const, &sh, why, sizeof why);
    if (sharded < 0) return usage_error("%s", why);
    char shard[64] = "";
    size_t sweep_seeds = s.n;                   /* before sharding */
    if (sharded) {
        size_t k = 0;
        for (size_t j = 0; j < s.n; j++) {
            if (!shard_has(&sh, j)) continue;
            if (sampled) sampled[k] = sampled[j];
            s.v[k++] = s.v[j];
        }
        s.n = k;
        snprintf(shard, sizeof shard, "%lu/%lu", sh.index + 1, sh.count);       /* as --shard writes it */
        fprintf(stderr, "dsim: shard %s (from %s): %zu seeds\n", shard, sh.source, s.n);
    }
    if (o.trace && s.n != 1)
        return usage_error("%s: --trace needs a single seed (or use dsim replay CONF SEED --trace FILE)", "run");
    if (o.checkpoint && strstr(o.seeds, "random:"))
        return usage_error("%s: random seeds cannot be checkpointed (a rerun would draw others)", "run");
    struct config *c = load_with_plan(confpath, &o);
    if (!c) return EXIT_USAGE;
    warn_if_seen(c, "--results", o.results);
    warn_if_seen(c, "--junit", o.junit);
    warn_if_seen(c, "--checkpoint", o.checkpoint);
    warn_if_seen(c, "--output", o.output);
    FILE *results = open_output(o.results), *junit = open_output(o.junit);
    if ((o.results && !results) || (o.junit && !junit)) { config_free(c); return EXIT_USAGE; }
    char *rerun = rerun_options(&o), *vars = defines_to_json(&o.defines);
    int status;
    if (o.trace) {
        struct seed_result r;
        status = one_seed(confpath, c, s.v[0], &o, &r, true);
        if (status == 1 && !dsim_interrupted) {
            set_replay(&r, confpath, &o);
            result_print_failure(stdout, &r);
            result_summary(stdout, &r, 1, 1, false, false);
        } else if (status == 0) {
            result_summary(stdout, &r, 1, 1, false, false);
        }
        if (dsim_interrupted) status = interrupted_status();
        result_free(&r);
    } else {
        long cpus = sysconf(_SC_NPROCESSORS_ONLN);
        struct sweep sw = { .confpath = confpath, .conf = c, .seeds = s.v, .nseeds = s.n,
                            .jobs = o.jobs ? o.jobs : (int)(cpus > 0 ? cpus : 1),
                            .keep_going = o.keep_going, .progress = isatty(2) && s.n > 1,
                            .results = results, .junit = junit, .checkpoint = o.checkpoint,
                            .spec = o.seeds, .shard = shard, .sweep_seeds = sweep_seeds, .output = o.output,
                            .plan = o.faults, .nplan = o.nfaults, .use_plan = o.plan != NULL,
                            .sampled = sampled, .sample_spec = o.verify_sample, .rerun = rerun, .vars = vars,
                            .warm_cold = o.warm && !strcmp(o.warm, "cold") };
        status = sweep_run(&sw);
    }
    if (results) fclose(results);
    if (junit) fclose(junit);
    fflush(stdout);
    config_free(c);
    free(s.v);
    free(sampled);
    free(rerun);
    free(vars);
    defines_free(&o.defines);
    return status;
}

/* Runs a seed K times (and up to this many more when the explanation of
 * differing hashes lacks a stack only a further run can take). */
#define VERIFY_EXTRA_RUNS 2

int cmd_verify(int argc, char **argv)
{
    struct opts o = { .runs = 2 };
    if (argc < 2 || argv[1][0] == '-') return usage_error("%s: missing CONF", "verify");
    const char *confpath = argv[1];
    if (parse_opts(argc - 1, argv + 1, &o, "ntrPTUD")) return EXIT_USAGE;
    if (optind + 1 < argc) return usage_error("unexpected argument %s", argv[optind + 1]);
    uint64_t seed;
    if (!o.seed) return usage_error("%s: --seed N is required", "verify");
    if (parse_seed_arg(o.seed, &seed)) return usage_error("bad --seed %s", o.seed);
    struct config *c = load_with_plan(confpath, &o);
    if (!c) return EXIT_USAGE;
    FILE *check = open_trace(o.trace);            /* a --trace that cannot be written stops us before any run */
    if (o.trace && !check) { config_free(c); return EXIT_USAGE; }
    if (check) fclose(check);
    struct run_opts base = { .plan = o.faults, .nplan = o.nfaults, .use_plan = o.plan != NULL };
    struct explain *e = explain_new(c, &base, seed);
    char first[33] = "";
    int runs = o.runs;
    for (int i = 1; i <= runs; i++) {
        struct seed_result r;
        if (explain_run(e, &r, o.trace) != 0) {
            fprintf(stderr, "dsim: cannot make a temporary file for the trace: %s\n", strerror(errno));
            explain_free(e);
            config_free(c);
            return EXIT_USAGE;
        }
        result_free(&r);
        if (dsim_interrupted) { explain_free(e); config_free(c); return interrupted_status(); }
        printf("run %d: %s %s%s\n", i, r.hash, outcome_name(r.outcome),
               i > o.runs ? " (one more run, for the stacks)" : "");
        if (i == 1) memcpy(first, r.hash, sizeof first);
        if (i == runs && runs < o.runs + VERIFY_EXTRA_RUNS && explain_hashes(e) > 1 && explain_wants_more(e)) runs++;
    }
    bool same = explain_hashes(e) == 1;
    if (!same) {
        printf("dsim: seed %" PRIu64 " is NOT deterministic: the hashes differ\n", seed);
        explain_print(e, stdout, "run");
    }
    printf("%s\n", first);
    explain_free(e);
    config_free(c);
    return same ? 0 : 1;
}

int cmd_replay(int argc, char **argv)
{
    struct opts o = { 0 };
    if (argc < 3 || argv[1][0] == '-') return usage_error("%s: usage: dsim replay CONF SEED", "replay");
    const char *confpath = argv[1];
    uint64_t seed;
    if (parse_seed_arg(argv[2], &seed)) return usage_error("bad seed %s", argv[2]);
    if (parse_opts(argc - 2, argv + 2, &o, "toKPOXTUD")) return EXIT_USAGE;
    if (o.stacks && !o.trace) return usage_error("%s: --stacks needs --trace FILE", "replay");
    if (optind + 2 < argc) return usage_error("unexpected argument %s", argv[optind + 2]);
    struct config *c = load_with_plan(confpath, &o);
    if (!c) return EXIT_USAGE;
    struct seed_result r;
    int status = one_seed(confpath, c, seed, &o, &r, true);
    if (status == EXIT_USAGE) { config_free(c); return status; }
    if (dsim_interrupted) status = interrupted_status();
    else if (status) { set_replay(&r, confpath, &o); result_print_failure(stdout, &r); }
    else printf("seed %" PRIu64 " passed: simulated time %.9fs, %" PRIu64 " steps\n", seed,
                (double)r.sim_time_ns / 1e9, r.steps);
    printf("trace hash %s\n", r.hash);
    result_free(&r);
    config_free(c);
    return status;
}

int cmd_exec(int argc, char **argv)
{
    struct opts o = { 0 };
    if (parse_opts(argc, argv, &o, "ntdeTUL")) return EXIT_USAGE;
    if (optind >= argc) return usage_error("%s: missing PROGRAM", "exec");
    uint64_t seed = 1;
    if (o.seed && parse_seed_arg(o.seed, &seed)) return usage_error("bad --seed %s", o.seed);
    char err[1024];
    struct config *c = config_for_exec(argv + optind, err, sizeof err);
    if (!c) { fprintf(stderr, "dsim: %s\n", err); return EXIT_USAGE; }
    if (o.duration && parse_duration(o.duration, &c->duration_ns))
        return usage_error("bad --duration %s", o.duration);
    if (apply_tsc(c, &o) != 0) return EXIT_USAGE;
    c->machines[0].argv = argv + optind;
    c->machines[0].env = o.env;
    c->machines[0].nenv = o.nenv;
    struct run_opts ro = { .exec_stdio = true };
    ro.trace_out = open_trace(o.trace);
    ro.trace_results = true;
    if (o.trace && !ro.trace_out) return EXIT_USAGE;
    struct seed_result r;
    run_seed(c, seed, &ro, &r);
    if (ro.trace_out) fclose(ro.trace_out);
    fflush(stdout);
    int status;
    if (dsim_interrupted) status = interrupted_status();
    else if (r.outcome == OUT_PASS || r.outcome == OUT_EXIT)
        status = WIFSIGNALED(r.exit_status) ? 128 + WTERMSIG(r.exit_status) : WEXITSTATUS(r.exit_status);
    else {
        status = r.outcome == OUT_TIMEOUT ? 124 : 125;
        fprintf(stderr, "dsim: seed %" PRIu64 ": %s\n", seed, r.reason);
        if (r.report) fputs(r.report, stderr);
    }
    fprintf(stderr, "dsim: trace hash %s\n", r.hash);
    result_free(&r);
    c->machines[0].env = NULL;
    c->machines[0].nenv = 0;
    config_free(c);
    free(o.env);
    return status;
}
