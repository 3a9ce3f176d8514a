/* The network fault kinds' keys in cluster.conf:
 *
 *   [fault NAME]  kind = partition: sides (or machine), one_way;
 *                 kind = loss | duplicate: rate, machines;
 *   [chaos]       partition, partition_for, partition_one_way,
 *                 loss, loss_for, loss_rate,
 *                 duplicate, duplicate_for, duplicate_rate.
 *
 * config.c hands over these keys (it knows the rest of both sections), the
 * end of each [fault], and, once every machine is read, the checks that
 * need machine names. They have their own bookkeeping, like netconf.c's,
 * and the same rules and messages as the rest of the file.
 *
 * Each function returns 0, or the line of the error with its message (no
 * "file:line: " prefix) in msg. */
#ifndef DSIM_NETFAULTS_H
#define DSIM_NETFAULTS_H
#include "base/config.h"
#include <stdbool.h>
#include <stddef.h>

/* Keys set in the current section; zero it at each section header. */
struct netfaults_parser {
    unsigned seen;
};

/* Whether name is one of these keys in [chaos] (chaos) or [fault]. */
bool netfaults_has_key(bool chaos, const char *name);
/* One key of the current [fault] f, or of [chaos] ch (the other is NULL). */
int netfaults_key(struct netfaults_parser *np, struct fault_conf *f, struct chaos_conf *ch, const char *name,
                  const char *value, int line, char *msg, size_t msglen);
/* The [fault] keys (FK_) set among these. */
unsigned netfaults_set(const struct netfaults_parser *np);
/* With every machine known: the network faults' machines exist (and are
 * among the first 64); a partition given `machine` becomes that machine |
 * the others; [chaos] partitions have two targets or more. */
int netfaults_resolve(struct config *c, char *msg, size_t msglen);

/* "30%" or "10%..50%", in ppm. 0, or -1. */
int parse_percent_range(const char *s, uint32_t *lo, uint32_t *hi);
#endif
