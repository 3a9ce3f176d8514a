/* The network faults' machine names ([fault NAME] of kind partition, loss
 * or duplicate, and [chaos]'s network faults), checked once every machine
 * of the file is known: machines may be declared after the faults that
 * name them. config.c reads their keys (its key table) and calls this.
 *
 * netfaults_resolve returns 0, or the line of the error with its message
 * (no "file:line: " prefix) in msg. */
#ifndef DSIM_NETFAULTS_H
#define DSIM_NETFAULTS_H
#include "base/fault.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* With names, every machine's in file order: the network faults' machines
 * exist (and are among the first 64); a partition given `machine` becomes
 * that machine | the others; [chaos] (ch, or NULL) partitions have two
 * targets or more. */
int netfaults_resolve(struct fault_conf *faults, size_t nfaults, const struct chaos_conf *ch, char *const *names,
                      size_t nnames, char *msg, size_t msglen);

/* "30%" or "10%..50%", in ppm. 0, or -1. */
int parse_percent_range(const char *s, uint32_t *lo, uint32_t *hi);
#endif
