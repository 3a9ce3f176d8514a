/* A run compared, event by event as it is made, with earlier runs of the
 * same seed (their traces): where it first parts from each, and for a few
 * events from there on, the stack of the thread that made each event
 * (dsim verify, docs/design.md §9). */
#ifndef DSIM_WATCH_H
#define DSIM_WATCH_H
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct world;

/* Stacks are taken for this many events from each parting on, and for as
 * many events of the thread that parted: a later pair of runs may part a
 * little after this run parted from an earlier one (a counter read from
 * the host, say), with other machines' events in between. */
#define WATCH_WINDOW 4

struct stack_at {
    uint64_t index;         /* the event's */
    char *text;             /* "    #0 ..." lines, or NULL: no thread of it was stopped there */
    char who[96];           /* "machine M thread T" */
};

struct watch_ref {
    FILE *trace;            /* an earlier run's trace, plain text */
    char *line;
    size_t cap;
    bool parted;            /* this run already went otherwise */
};

struct watch {
    struct world *w;        /* set by run_seed */
    struct watch_ref *refs;
    size_t nrefs;
    uint64_t capture_until; /* take stacks of events below this index */
    struct { char key[80]; int left; } threads[8];  /* and of these threads' next events */
    size_t nthreads;
    struct stack_at *stacks;
    size_t nstacks, capstacks;
};

/* Rewinds each reference; refs are not owned. */
void watch_init(struct watch *wt, FILE **refs, size_t nrefs);
/* The trace tap (trace_set_tap) of a watched run. */
void watch_tap(void *arg, uint64_t index, const char *line);
/* Frees what the watch holds but the stacks, which the caller takes. */
void watch_done(struct watch *wt);
#endif
