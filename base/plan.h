/* Fault plans: the faults that fired in a run, as a small JSON file that
 * `--plan FILE` replays instead of the config's faults. */
#ifndef DSIM_PLAN_H
#define DSIM_PLAN_H
#include <stddef.h>
#include "base/config.h"

/* {"faults":[{"name":..,"kind":..,"at_ns":..,"machine":..,("by_ns"|"duration_ns"):..},...]};
 * a partition has "sides":[[names],[names]] and "one_way" instead of a
 * machine, a loss or duplicate burst "rate_ppm" and maybe "machines". */
char *plan_to_json(const struct fault_conf *f, size_t n);
/* Reads a plan for config c (its machines must exist). 0, or -1 with err. */
int plan_load(const char *path, const struct config *c, struct fault_conf **out, size_t *n,
              char *err, size_t errlen);
/* The same, from the JSON text a run recorded. */
int plan_from_json(const char *text, const struct config *c, struct fault_conf **out, size_t *n,
                   char *err, size_t errlen);
void plan_free(struct fault_conf *f, size_t n);
/* What f hits, for people: "app", "a b | c", "a -> c", "every link",
 * "links of a b". */
const char *fault_targets(const struct fault_conf *f, char *buf, size_t size);
#endif
