/* Commands that work on runs and their records: merge, trace, diff,
 * shrink. */
#include "base/xalloc.h"
#include "cli/cli.h"
#include "supervisor/diverge.h"
#include "base/plan.h"
#include "base/results.h"
#include "supervisor/run.h"
#include "supervisor/shrink.h"
#include "trace/trace.h"
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

static int by_seed(const void *a, const void *b)
{
    const struct seed_result *x = a, *y = b;
    return x->seed < y->seed ? -1 : x->seed > y->seed;
}

/* Results of shards name theirs ("I/N", 1-based as --shard writes it) and
 * the whole sweep's number of seeds, T: seeds go to shards in turn, so
 * shard I had seeds if I <= T, and
 * each of those must be there, or the merged sweep would pass over the
 * missing ones' seeds. */
static bool missing_shards(struct seed_result *v, size_t n)
{
    unsigned long total = 0, *count = NULL;
    uint64_t seeds = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned long si, sn;
        if (!v[i].shard[0] || sscanf(v[i].shard, "%lu/%lu", &si, &sn) != 2 || !sn || si < 1 || si > sn) continue;
        if (!total) count = calloc(total = sn, sizeof *count);
        if (sn != total || (seeds && v[i].sweep_seeds && v[i].sweep_seeds != seeds)) {
            fprintf(stderr, "dsim: results of different sweeps (shards of %lu and of %lu, or other seeds)\n",
                    total, sn);
            free(count);
            return true;
        }
        if (v[i].sweep_seeds) seeds = v[i].sweep_seeds;
        count[si - 1]++;
        v[i].shard[0] = 0;          /* the merged sweep is not a shard */
    }
    bool missing = false;
    for (unsigned long i = 0; i < total; i++)
        if (!count[i] && i < seeds) {
            fprintf(stderr, "dsim: no results of shard %lu/%lu\n", i + 1, total);
            missing = true;
        }
    free(count);
    return missing;
}

/* Combines shards' --results files into one sweep: seeds in order, cut at
 * the first failure unless --keep-going (each shard ran every one of its
 * seeds below its own first failure, so nothing below the cut is missing). */
int cmd_merge(int argc, char **argv)
{
    struct opts o = { 0 };
    if (parse_opts(argc, argv, &o, "kRJ")) return EXIT_USAGE;
    if (optind >= argc) return usage_error("%s: no results files", "merge");
    struct seed_result *v = NULL;
    size_t n = 0, cap = 0;
    for (int a = optind; a < argc; a++) {
        FILE *f = fopen(argv[a], "re");
        if (!f) { fprintf(stderr, "dsim: cannot read %s: %s\n", argv[a], strerror(errno)); return EXIT_USAGE; }
        char *line = NULL;
        size_t lcap = 0;
        long lineno = 0;
        while (getline(&line, &lcap, f) > 0) {
            lineno++;
            GROW(v, n, cap);
            if (result_from_json(line, &v[n])) {
                fprintf(stderr, "%s:%ld: not a dsim result line\n", argv[a], lineno);
                return EXIT_USAGE;
            }
            n++;
        }
        free(line);
        fclose(f);
    }
    if (n) qsort(v, n, sizeof *v, by_seed);
    /* A shard given twice (or two overlapping sweeps) would count its seeds
     * twice. (A seed listed twice in one sweep's --seeds also comes twice:
     * merge such sweeps' results by hand.) */
    for (size_t i = 1; i < n; i++)
        if (v[i].seed == v[i - 1].seed) {
            fprintf(stderr, "dsim: seed %" PRIu64 " is in the results twice (a shard given twice?)\n", v[i].seed);
            return EXIT_USAGE;
        }
    if (missing_shards(v, n)) return EXIT_USAGE;
    size_t keep = n;                /* the merged sweep's seeds: up to its first failure */
    for (size_t i = 0; i < n && keep == n && !o.keep_going; i++)
        if (v[i].outcome != OUT_PASS) keep = i + 1;
    FILE *results = open_output(o.results), *junit = open_output(o.junit);
    if ((o.results && !results) || (o.junit && !junit)) return EXIT_USAGE;
    for (size_t i = 0; i < keep; i++) {
        if (results) { char *j = result_to_json(&v[i], 0); fprintf(results, "%s\n", j); free(j); }
        if (v[i].outcome != OUT_PASS) result_print_failure(stdout, &v[i]);
    }
    if (junit) junit_write(junit, "dsim merge", v, keep, 0);
    int status = result_summary(stdout, v, keep, n, o.keep_going, false);
    if (results) fclose(results);
    if (junit) fclose(junit);
    for (size_t i = 0; i < n; i++) result_free(&v[i]);
    free(v);
    return status;
}

/* Whether an event's name (a syscall, or a kind such as "fault", "net",
 * "disk:") is the one --syscall asks for: an event kind written with its
 * colon ("disk: ...") matches with or without it. */
static bool event_named(const char *call, const char *want)
{
    size_t n = strlen(want);
    if (n && want[n - 1] == ':') n--;
    return !strncmp(call, want, n) && (call[n] == 0 || (call[n] == ':' && call[n + 1] == 0));
}

/* Prints a trace written by --trace, filtered. */
int cmd_trace(int argc, char **argv)
{
    static const struct option longopts[] = {
        { "machine", required_argument, 0, 'm' }, { "thread", required_argument, 0, 't' },
        { "syscall", required_argument, 0, 's' }, { "from", required_argument, 0, 'f' },
        { "to", required_argument, 0, 'T' }, { "help", no_argument, 0, 'h' }, { 0, 0, 0, 0 },
    };
    const char *machine = NULL, *call = NULL;
    int thread = -1;
    uint64_t from = 0, to = UINT64_MAX;
    int c;
    if (argc < 2 || argv[1][0] == '-') return usage_error("%s: usage: dsim trace FILE [filters]", "trace");
    const char *path = argv[1];
    optind = 1;
    while ((c = getopt_long(argc - 1, argv + 1, "+", longopts, NULL)) != -1) {
        switch (c) {
        case 'm': machine = optarg; break;
        case 't': {
            char *end;
            long v = strtol(optarg, &end, 10);
            if (*end || *optarg < '0' || *optarg > '9' || v < 0 || v > INT32_MAX)
                return usage_error("bad --thread %s", optarg);
            thread = (int)v;
            break;
        }
        case 's': call = optarg; break;
        case 'f': if (parse_duration(optarg, &from)) return usage_error("bad --from %s", optarg); break;
        case 'T': if (parse_duration(optarg, &to)) return usage_error("bad --to %s", optarg); break;
        case 'h': command_help("trace"); return 0;
        default: return usage_error("%s: unexpected option", "trace");
        }
    }
    if (optind + 1 != argc) return usage_error("unexpected argument %s", argv[optind + 1]);
    gzFile f = gzopen(path, "rb");      /* reads plain text too */
    if (!f) { fprintf(stderr, "dsim: cannot read %s: %s\n", path, strerror(errno)); return EXIT_USAGE; }
    char line[65536], *copy = NULL;
    bool shown = false;         /* notes ("  | ...") follow the event they belong to */
    while (gzgets(f, line, sizeof line)) {
        struct trace_line l;
        if (!strncmp(line, "  | ", 4)) { if (shown) fputs(line, stdout); continue; }
        shown = false;
        free(copy);
        copy = strdup(line);
        if (trace_parse_line(copy, &l)) continue;
        if ((machine && strcmp(l.machine, machine)) || (thread >= 0 && l.tid != thread) ||
            (call && !event_named(l.call, call)) || l.vtime_ns < from || l.vtime_ns > to)
            continue;
        fputs(line, stdout);
        shown = true;
    }
    free(copy);
    gzclose(f);
    return 0;
}

/* Reduces a failing seed's faults to a minimal plan. */
int cmd_shrink(int argc, char **argv)
{
    struct opts o = { 0 };
    if (argc < 3 || argv[1][0] == '-') return usage_error("%s: usage: dsim shrink CONF SEED", "shrink");
    uint64_t seed;
    if (parse_seed_arg(argv[2], &seed)) return usage_error("bad seed %s", argv[2]);
    if (parse_opts(argc - 2, argv + 2, &o, "POTUD")) return EXIT_USAGE;
    if (optind + 2 < argc) return usage_error("unexpected argument %s", argv[optind + 2]);
    struct config *c = load_with_plan(argv[1], &o);
    if (!c) return EXIT_USAGE;
    char out[4096];
    scratch_path(out, sizeof out, "dsim-plan", seed);
    if (o.plan_out) warn_if_seen(c, "--plan-out", o.plan_out);
    /* The minimal plan replaces --plan in its replay line; the rest stays. */
    struct opts rest = o;
    rest.plan = NULL;
    char *rerun = rerun_options(&rest);
    int status = shrink_seed(c, argv[1], seed, o.faults, o.nfaults, o.plan != NULL, o.plan_out ? o.plan_out : out,
                             rerun);
    free(rerun);
    defines_free(&o.defines);
    plan_free(o.faults, o.nfaults);
    config_free(c);
    return dsim_interrupted ? interrupted_status() : status;
}

/* Where two seeds' runs part: exit 0 if identical, 1 if they differ. */
int cmd_diff(int argc, char **argv)
{
    uint64_t a, b;
    struct opts o = { 0 };
    if (argc == 2 && !strcmp(argv[1], "--help")) { command_help("diff"); return 0; }
    if (argc < 4 || argv[1][0] == '-') return usage_error("%s: usage: dsim diff CONF SEED_A SEED_B", "diff");
    if (parse_seed_arg(argv[2], &a) || parse_seed_arg(argv[3], &b)) return usage_error("%s: bad seed", "diff");
    if (parse_opts(argc - 3, argv + 3, &o, "PTUD")) return EXIT_USAGE;
    if (optind + 3 < argc) return usage_error("unexpected argument %s", argv[optind + 3]);
    struct config *c = load_with_plan(argv[1], &o);
    if (!c) return EXIT_USAGE;
    printf("seeds %" PRIu64 " and %" PRIu64 " of %s:\n", a, b, argv[1]);
    struct run_opts base = { .plan = o.faults, .nplan = o.nfaults, .use_plan = o.plan != NULL };
    int d = diverge_print(stdout, c, &base, a, "seed", b, "seed", 5);
    plan_free(o.faults, o.nfaults);
    defines_free(&o.defines);
    config_free(c);
    if (dsim_interrupted) return interrupted_status();
    return d < 0 ? EXIT_USAGE : d;
}

