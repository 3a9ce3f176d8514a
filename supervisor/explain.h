/* Runs of one seed that should have one trace hash, and, when they do not,
 * where they parted and what they read from outside the simulation before
 * (dsim verify, the sweep's --verify-sample; docs/design.md §9). */
#ifndef DSIM_EXPLAIN_H
#define DSIM_EXPLAIN_H
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "supervisor/run.h"

struct explain;

/* The runs take base's plan and check settings. */
struct explain *explain_new(struct config *c, const struct run_opts *base, uint64_t seed);
/* Runs the seed once more with its trace kept (results of calls and reads
 * from outside noted), compared as it goes with each earlier run of
 * another hash, taking stacks where it parts from them. If trace_path is
 * set, the trace is written there too (gzip). Fills r; -1 if no temporary
 * file could be made. */
int explain_run(struct explain *e, struct seed_result *r, const char *trace_path);
/* Distinct hashes so far. */
size_t explain_hashes(const struct explain *e);
/* The i-th distinct hash, in the order the runs first gave it. */
const char *explain_hash(const struct explain *e, size_t i);
/* Whether another run could give a stack the explanation still lacks
 * (a run takes stacks only where it parts from an earlier one). */
bool explain_wants_more(struct explain *e);
/* Where two runs of different hashes parted, as "LABEL N" (the Nth run). */
void explain_print(struct explain *e, FILE *out, const char *label);
void explain_free(struct explain *e);

/* A seed's run had hash `first` and a second run `again` (--verify-sample):
 * up to 4 more runs of it, and where two of them parted, as report text
 * (malloc'd, lines indented). */
char *explain_report(struct config *c, const struct run_opts *base, uint64_t seed, const char *first,
                     const struct seed_result *again);
#endif
