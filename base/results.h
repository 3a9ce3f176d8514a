/* Seed results as JSON lines (--results, --checkpoint, dsim merge) and as
 * JUnit XML. Pure formatting: knows nothing of runs or ptrace. */
#ifndef DSIM_RESULTS_H
#define DSIM_RESULTS_H
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct seed_result {
    uint64_t seed;
    long index;             /* position in the sweep (checkpoints), -1 if unknown */
    char outcome[32];       /* "pass", "exit", "time limit", ... */
    char *reason;           /* malloc'd */
    char *report;           /* malloc'd failure details, NULL when passing */
    char *replay;           /* malloc'd replay command, NULL when passing */
    uint64_t sim_time_ns, steps, wall_ms;
    char hash[33];
    char shard[48];         /* "I/N" when the sweep was a shard, else empty */
    uint64_t sweep_seeds;   /* with a shard: the seeds of the whole sweep */
    int replayed;           /* --verify-sample: 1 a re-run gave the same hash, -1 not, 0 not sampled */
    char replay_hash[33];   /* the re-run's hash, when sampled */
    char *defines;          /* malloc'd JSON object of the run's -D values ({"BUG":"claim"}), or NULL */
};

/* The outcome of a sampled seed whose re-run gave another trace hash. */
#define OUTCOME_NONDETERMINISTIC "nondeterministic"

/* One JSON object (no newline), malloc'd. with_index adds "index". */
char *result_to_json(const struct seed_result *r, int with_index);
/* Parses a line written by result_to_json; 0 or -1. Frees nothing. */
int result_from_json(const char *line, struct seed_result *r);
void result_free(struct seed_result *r);
/* A failing seed's report, as a sweep prints it. */
void result_print_failure(FILE *f, const struct seed_result *r);
struct defines;
/* The -D values as a compact JSON object (malloc'd), or NULL if none. */
char *defines_to_json(const struct defines *d);
/* JUnit XML: one testcase per failing result and one summary testcase. */
void junit_write(FILE *f, const char *suite, const struct seed_result *r, size_t n, double seconds);
#endif
