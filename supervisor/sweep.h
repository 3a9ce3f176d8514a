/* Running many seeds over parallel workers. */
#ifndef DSIM_SWEEP_H
#define DSIM_SWEEP_H
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "base/config.h"

struct sweep {
    const char *confpath;
    struct config *conf;
    const uint64_t *seeds;
    size_t nseeds;
    int jobs;               /* worker processes (1..256) */
    bool keep_going;        /* run every seed and report every failure */
    bool progress;          /* an updating line on stderr */
    FILE *results;          /* JSON lines, one per seed in seed order, or NULL */
    FILE *junit;            /* JUnit XML, or NULL */
    const char *checkpoint; /* resumable record of finished seeds, or NULL */
    const char *spec;       /* the --seeds text and the shard, which name the */
    const char *shard;      /*   sweep a checkpoint belongs to */
    size_t sweep_seeds;     /* seeds of the whole sweep, before sharding */
    const char *output;     /* keep machine outputs in DIR/seed-N, or NULL */
    const struct fault_conf *plan;  /* --plan: replaces the config's faults */
    size_t nplan;
    bool use_plan;
    const bool *sampled;    /* --verify-sample: seeds[i] runs a second time if sampled[i]; NULL: none */
    const char *sample_spec;/* its text (names the sweep in a checkpoint) */
    const char *rerun;      /* what a printed command adds to CONF SEED to redo a seed exactly */
    const char *vars;       /* the -D values as a JSON object, or NULL: carried by each result */
    bool warm_cold;         /* --warm cold: a warm start's seeds never start from a snapshot */
};

/* Exit status: 0 all passed, 1 a seed failed, 3 a sampled seed did not
 * replay, 128+N if interrupted. */
int sweep_run(const struct sweep *s);
#endif
