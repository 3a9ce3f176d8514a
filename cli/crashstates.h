/* dsim crash-states: every distinct disk one crash of a seed's run could
 * leave, each run to the end. */
#ifndef DSIM_CRASHSTATES_H
#define DSIM_CRASHSTATES_H
#include "world/world.h"

/* "C:a.b.c" (crash C, decisions a, b, c) into p, its choices kept in buf. */
int crash_state_parse(const char *s, struct crash_pick *p, unsigned *buf, size_t max);
int cmd_crash_states(int argc, char **argv);
#endif
