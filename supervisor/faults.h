/* Scheduled faults from cluster.conf's [fault NAME] sections. */
#ifndef DSIM_FAULTS_H
#define DSIM_FAULTS_H
#include <stdint.h>
#include "world/world.h"

/* This run's faults: the config's [fault]s and the [chaos] draws for this
 * seed, by time. The caller frees them with plan_free. */
struct fault_conf *faults_for_run(const struct config *c, uint64_t seed, size_t *n);
/* Virtual time of the next fault that has not fired, or UINT64_MAX. */
uint64_t faults_next(struct world *w);
/* Fires every fault due by now, in file order, each once. */
void faults_fire(struct world *w);
/* At a warm start: [chaos] faults drawn for times before t never fire. */
void faults_drop_drawn_before(struct world *w, uint64_t t);
#endif
