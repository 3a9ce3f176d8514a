/* A copy of a directory tree of the run's disks, made in dsim's own
 * process (a warm start's frozen layers and each seed's upper layers,
 * supervisor/snapshot.c): what `cp -a` keeps, without its fork and exec. */
#ifndef DSIM_TREECOPY_H
#define DSIM_TREECOPY_H

/* Copies the tree at `from` to `to`, which must not exist: directories,
 * regular files (a reflink, else copy_file_range, holes kept), symlinks,
 * device nodes (overlayfs's whiteouts: 0:0 character devices), fifos and
 * sockets; hard links within the tree as hard links; each entry's owner,
 * mode, access and modification times (a directory's after its entries)
 * and extended attributes (overlayfs's trusted.overlay.*: opaque
 * directories, origins). Entries in each directory's own order, so that
 * the copy lists them as the original does. Never follows a symlink. 0, or
 * -1 with errno (a failed extended attribute is not a failure, as for
 * `cp -a`). */
int disk_copy_tree(const char *from, const char *to);
#endif
