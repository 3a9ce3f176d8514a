/* Paths dsim works on for a machine, kept where they belong.
 *
 * The machines' disks (disk/NAME in the run directory: upper layers, the
 * durable contents, the graveyard) hold names and symlinks the machine
 * made. dsim renames, removes, restores and copies there on the machine's
 * behalf, at a crash long after the names were noted: every such path is
 * resolved beneath the disks' directory without following any symlink, so
 * a symlink a machine planted (to /etc, say) can never take dsim outside.
 * Paths not under it are refused (EXDEV).
 *
 * Machine paths (what a tracee names) are resolved inside the machine's
 * root (/proc/PID/root with RESOLVE_IN_ROOT): an absolute symlink there
 * means the machine's /, not the host's. */
#ifndef DSIM_CONFINED_H
#define DSIM_CONFINED_H
#include <dirent.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>

/* The directory every cf_ path must be under (the run's disk/): set for
 * each run. */
void cf_set_root(const char *root);

int cf_lstat(const char *path, struct stat *st);
int cf_statx(const char *path, unsigned mask, struct statx *sx);
int cf_open(const char *path, int flags, mode_t mode);      /* O_NOFOLLOW added */
DIR *cf_opendir(const char *path);
int cf_unlink(const char *path);
int cf_mkdir(const char *path, mode_t mode);
int cf_mkdirs_for(const char *path);                        /* the parents of path */
int cf_mknod(const char *path, mode_t mode, dev_t dev);
int cf_link(const char *from, const char *to);
int cf_rename(const char *from, const char *to, unsigned flags);
ssize_t cf_readlink(const char *path, char *buf, size_t len);
int cf_utimens(const char *path, const struct timespec ts[2]);
int cf_truncate(const char *path, off_t len);
int cf_set_opaque(const char *path);                        /* overlayfs's opaque directory mark */
/* Removes path and, if it is a directory, everything in it; never
 * following a symlink. */
void cf_remove_tree(const char *path);

/* An O_PATH fd for machine path mpath resolved inside the root of process
 * pid (its last component not followed if nofollow), or -1. */
int machine_path_open(int pid, const char *mpath, bool nofollow, int flags);
#endif
