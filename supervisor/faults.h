/* Scheduled faults from cluster.conf's [fault NAME] sections. */
#ifndef DSIM_FAULTS_H
#define DSIM_FAULTS_H
#include <stdint.h>
#include "supervisor/world.h"

/* Virtual time of the next fault that has not fired, or UINT64_MAX. */
uint64_t faults_next(struct world *w);
/* Fires every fault due by now, in file order, each once. */
void faults_fire(struct world *w);
#endif
