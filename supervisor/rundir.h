/* Run directories: $TMPDIR/dsim-runs/dsim-run.XXXXXX, one per seed (and a
 * dsim-fixed.XXXXXX per process, supervisor/vfs.c), with
 * TMPDIR made absolute and free of symlinks (machines see their parent by
 * that path, hidden). Each holds a file `lock` that the dsim process which
 * made it keeps locked (flock) until the directory is gone, so the next
 * dsim can tell one a killed dsim left behind (unlocked) from one in use,
 * and removes it. A directory without `lock` (an older dsim's, or anything
 * else) is never touched. The directory's contents live on a tmpfs mounted
 * over it in dsim's own mount namespace (rundir_mount); the lock stays on
 * the host's file system beneath, where other dsims see it. */
#ifndef DSIM_RUNDIR_H
#define DSIM_RUNDIR_H
#include <stdbool.h>
#include <stddef.h>

/* Makes and locks a new run directory, its path in dir; on the process's
 * first call, first removes those killed dsims left. The lock's fd, or -1
 * with a message in err. */
int rundir_make(char *dir, size_t len, char *err, size_t errlen);
/* The same for a process's fixed files (supervisor/vfs.c), named
 * dsim-fixed.XXXXXX, removed as a run directory is. */
int rundir_make_fixed(char *dir, size_t len, char *err, size_t errlen);
/* Mounts a tmpfs of `size` bytes on the run directory, in dsim's own
 * mount namespace: what a run writes there (machines' outputs, durable
 * copies, fixed files) takes memory up to that size and never the host's
 * TMPDIR, and goes with the namespace if dsim is killed. 0, or -1 with a
 * message in err. */
int rundir_mount(const char *dir, unsigned long long size, char *err, size_t errlen);
/* The run in dir is over: it is removed, with every mount on it, by a
 * thread in the background (or, with DSIM_RUNDIR_REMOVAL=foreground, a
 * few runs later by rundir_cleanup), and stays locked until then. */
void rundir_done(const char *dir, int lock);
/* Removes the directories rundir_done was given, but the newest `keep`.
 * With 0 before exiting: then also waits until the background thread has
 * removed every directory it was given. */
void rundir_cleanup(int keep);
/* True if run directories are removed in the background: their removal
 * then detaches the machines' disks too. */
bool rundir_background(void);
/* Removes, from the directory of run directories at `runs`, each that
 * has an unlocked `lock` file and belongs to this user. How many. */
int rundir_remove_stale(const char *runs);
/* The same in $TMPDIR's (a sweep's, after a worker was killed: its run
 * directory is unlocked once the last of its children is gone). */
int rundir_remove_stale_now(void);
#endif
