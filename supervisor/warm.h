/* Warm start ([simulation] warm_start): every seed's run up to a point is
 * one fixed start-up's, and its own from there on. */
#ifndef DSIM_WARM_H
#define DSIM_WARM_H
#include <stdbool.h>
#include "world/world.h"

/* The seed the run's streams draw from at its start. */
uint64_t warm_startup_seed(const struct config *c, uint64_t seed);
/* Whether the loop is at the warm start point now (and has not passed it). */
bool warm_due(const struct world *w);
/* At the point: every stream (scheduler, machines' entropy and disks, the
 * network's packets, picks and random partitions) draws from w->seed from
 * here on. [chaos] faults were drawn for both sides at the start
 * (faults_for_warm_run). */
void warm_point(struct world *w);
#endif
