/* Starting and stopping a machine: namespaces, an untraced init as pid 1,
 * and the machine's command as pid 2, traced from its first instruction. */
#ifndef DSIM_MACHINE_H
#define DSIM_MACHINE_H
#include "supervisor/filter.h"
#include "world/world.h"

/* Writes the files every machine sees in place of host facts (cpuinfo...). */
int machine_write_vfs(struct world *w);
/* Starts m; its command's first thread is added to w in TS_NEW. 0, or -1
 * with why it could not in why. */
int machine_start(struct world *w, struct machine *m, const struct filter_prog *fp, char *why, size_t whylen);
/* Kills every process of m (SIGKILL to its init); marks its threads dying. */
void machine_kill(struct world *w, struct machine *m);
/* After machine_kill and settle_all: waits until m's init is reaped, its
 * namespaces and mounts with it, so that a restart never meets them. */
void machine_wait_gone(struct world *w, struct machine *m);
#endif
