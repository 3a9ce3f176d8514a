/* The files and directories a machine sees in place of host facts in
 * /proc, /sys and /etc: written once per process into a directory of
 * their own, bound over the host's at each machine start. */
#ifndef DSIM_VFS_H
#define DSIM_VFS_H
#include "world/world.h"

/* Makes RUN_DIR/vfs (for a machine's own files) and RUN_DIR/disk, and
 * the shared directory if this process has none for this config yet;
 * notes its file system in w->host_devs[3]. 0, or -1 and errno. */
int vfs_write(struct world *w);
/* Removes the shared directory, if this process made it (at its exit). */
void vfs_release(void);
/* Binds each whose target lies under `under` (a prefix of machine paths)
 * over root+target: read-only, as the file system they are on is. */
void vfs_bind(const char *root, const char *under);
/* Binds src over dst, with the machine's boot time on src (flags: a
 * remount's, e.g. MS_RDONLY). The access time a read stamps is not shown
 * (stat.c). */
void vfs_bind_fixed(const struct world *w, const char *src, const char *dst, unsigned long flags);
#endif
