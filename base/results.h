/* A seed's result: the one record a run fills (run_seed), a sweep's
 * worker sends its parent, --results and the checkpoint write as a JSON
 * line, and dsim merge, the JUnit writer, the failure printer and the
 * summary read. Pure: knows nothing of runs or ptrace. Unit-tested in
 * tests/unit/test_results.c. */
#ifndef DSIM_RESULTS_H
#define DSIM_RESULTS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* How a run ended (a sweep adds OUT_NONDETERMINISTIC: a sampled seed whose
 * re-run gave another trace hash). Written by name (outcome_name). */
enum outcome { OUT_RUNNING, OUT_PASS, OUT_EXIT, OUT_TIMEOUT, OUT_DEADLOCK,
               OUT_FENCE, OUT_CHECK, OUT_INTERNAL, OUT_SPIN, OUT_NONDETERMINISTIC };
const char *outcome_name(enum outcome o);

/* The record's fields, X(TYPE, name, WHEN), in the order a JSON line
 * writes them; the name is the JSON key. A new field is one line here
 * (HACKING.md, "Add a field to the results").
 *   TYPE: U64, LONG, INT; OUTCOME (by name); TEXT (malloc'd; valid UTF-8
 *         in JSON, each bad byte U+FFFD); HASH (char[33]); NAME (char[48]);
 *         VERDICT (1 yes, -1 no, 0 not asked: a JSON boolean); OBJECT
 *         (malloc'd text of a JSON object).
 *   WHEN: REQUIRED (always written; a line without it is no result),
 *         ALWAYS, IF_SET (unless 0, NULL or ""), WITH(f) (when field f is
 *         set), CHECKPOINT (in checkpoint lines only), NEVER (the process's
 *         own: kept in memory and sent through a sweep's pipe, not written). */
#define RESULT_FIELDS(X) \
    X(U64,     seed,         REQUIRED)       \
    X(OUTCOME, outcome,      REQUIRED)       \
    X(TEXT,    reason,       ALWAYS)         \
    X(U64,     sim_time_ns,  ALWAYS)         /* simulated time at the end */ \
    X(U64,     steps,        ALWAYS)         \
    X(HASH,    hash,         REQUIRED)       /* the trace hash */ \
    X(U64,     wall_ms,      ALWAYS)         /* real time: the one field that varies */ \
    X(TEXT,    replay,       IF_SET)         /* a failing seed's replay command */ \
    X(TEXT,    report,       IF_SET)         /* a failing seed's details (events, stderr) */ \
    X(VERDICT, replayed,     IF_SET)         /* --verify-sample: its re-run had the same hash */ \
    X(HASH,    replay_hash,  WITH(replayed)) /*   the re-run's hash */ \
    X(OBJECT,  defines,      IF_SET)         /* the -D values ({"BUG":"claim"}) */ \
    X(NAME,    shard,        IF_SET)         /* "I/N" when the sweep was a shard */ \
    X(U64,     sweep_seeds,  WITH(shard))    /*   the seeds of the whole sweep */ \
    X(LONG,    index,        CHECKPOINT)     /* position in the sweep, -1 if unknown */ \
    X(TEXT,    check_output, NEVER)          /* what the [check] command printed */ \
    X(TEXT,    plan,         NEVER)          /* the faults that fired, as a JSON plan */ \
    X(INT,     ncrashes,     NEVER)          /* crashes whose disk was decided */ \
    X(INT,     exit_status,  NEVER)          /* of a single machine, for dsim exec */

#define RESULT_DECL_U64(n) uint64_t n
#define RESULT_DECL_LONG(n) long n
#define RESULT_DECL_INT(n) int n
#define RESULT_DECL_OUTCOME(n) enum outcome n
#define RESULT_DECL_TEXT(n) char *n
#define RESULT_DECL_HASH(n) char n[33]
#define RESULT_DECL_NAME(n) char n[48]
#define RESULT_DECL_VERDICT(n) int n
#define RESULT_DECL_OBJECT(n) char *n
#define RESULT_MEMBER(type, name, when) RESULT_DECL_##type(name);

struct seed_result {
    RESULT_FIELDS(RESULT_MEMBER)
};

/* Empty: zeros, index -1. */
void result_init(struct seed_result *r);
void result_free(struct seed_result *r);

/* One JSON object (no newline), malloc'd. with_index adds "index" (the
 * checkpoint's lines). */
char *result_to_json(const struct seed_result *r, int with_index);
/* Parses a line written by result_to_json into r (result_init first);
 * 0, or -1 if it is not a result line. Fields it lacks stay empty. */
int result_from_json(const char *line, struct seed_result *r);

/* The whole record, texts byte for byte (a sweep's pipe): malloc'd, its
 * size in *len. result_unpack fills r from such bytes; 0, or -1 if they
 * are not one (r then holds no text). */
char *result_pack(const struct seed_result *r, size_t *len);
int result_unpack(const char *buf, size_t len, struct seed_result *r);

/* A failing seed as dsim prints it: the reason, times, the replay command
 * and the report. */
void result_print_failure(FILE *f, const struct seed_result *r);
/* The last lines of a sweep of `total` seeds whose results in order are
 * v[0..n): where it failed, or how many failed, or that all passed, and
 * with `sampled` (or any sampled seed) the verify-sample line. Counts stop
 * at the first failure unless keep_going. Returns the exit status: 0, 1, or
 * 3 if a sampled seed did not replay. */
int result_summary(FILE *f, const struct seed_result *v, size_t n, size_t total, bool keep_going, bool sampled);

struct defines;
/* The -D values as a compact JSON object (malloc'd), or NULL if none. */
char *defines_to_json(const struct defines *d);
/* JUnit XML: one testcase per failing result and one summary testcase. */
void junit_write(FILE *f, const char *suite, const struct seed_result *r, size_t n, double seconds);
#endif
