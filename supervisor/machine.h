/* Starting and stopping a machine: namespaces, an untraced init as pid 1,
 * and the machine's command as pid 2, traced from its first instruction. */
#ifndef DSIM_MACHINE_H
#define DSIM_MACHINE_H
#include "supervisor/filter.h"
#include "world/world.h"

/* Starts m; its command's first thread is added to w in TS_NEW. 0, or -1
 * with why it could not in why. */
int machine_start(struct world *w, struct machine *m, const struct filter_prog *fp, char *why, size_t whylen);
/* The devices of m's mounts as process pid sees them, in its mountinfo's
 * order (m->mount_devs, for machine_dev_key). */
void machine_note_mounts(struct machine *m, pid_t pid);
/* Sets the next-pid cursor of m's pid namespace (its ns_last_pid) to
 * last_pid: the next process made there gets the first free pid after it.
 * Written by a process of that namespace (the cursor is its writer's
 * namespace's), forked for it and gone on return. 0, or -1 and errno. */
int machine_reset_pid_cursor(struct machine *m, pid_t last_pid);
/* Kills every process of m (SIGKILL to its init); marks its threads dying. */
void machine_kill(struct world *w, struct machine *m);
/* The inits of the machines running now, for a signal handler to kill:
 * noted once started, forgotten once reaped. */
void machine_note_live_init(pid_t pid);
void machine_forget_init(pid_t pid);
/* Kills every machine of the current run; async-signal-safe. */
void machines_kill_all_async(void);
/* Reaps the killed inits of earlier seeds (teardown does not wait for
 * them): with block, every one; else those already dead. */
void machines_reap_earlier_inits(bool block);
#endif
