/* A machine's disk as a crash would find it (docs/design.md §2): which
 * names and which file contents have reached stable storage. The upper
 * layers of the machine's overlays hold what it wrote; beside them,
 * disk/NAME/content holds each file's last durable content (by upper-layer
 * inode and birth time), and disk/NAME/grave keeps, as hard links, the
 * files a name operation replaced or removed, until it is durable. */
#ifndef DSIM_DURABLE_H
#define DSIM_DURABLE_H
#include "base/oplog.h"
#include "world/world.h"
#include "disk/layout.h"
#include <sys/stat.h>

/* Where the durable contents are kept (content/NAME in the run directory):
 * beside the disk, not on it (a copy of each synced file must not count
 * against the machine's disk size). */
void disk_content_dir(const struct world *w, const struct machine *m, char *out, size_t len);
/* A name operation about to be made (at its entry stop): notes what the
 * upper layer holds at its paths now. NULL if it is not on the disk. */
struct name_op *disk_op_begin(struct world *w, struct machine *m, enum name_op_kind kind, const char *mpath,
                              const char *mpath2);
/* At its exit stop: it failed (forget it) or took effect. */
void disk_op_end(struct world *w, struct machine *m, bool done);
/* Whether the machine path names something now (through the overlay). */
bool disk_exists(const struct world *w, const struct machine *m, const char *mpath);

/* Changes to a file's content, the file known by the device and inode the
 * machine's fd or path shows (st): len bytes at off, or somewhere. */
void disk_file_written(struct machine *m, const struct stat *st, uint64_t off, uint64_t len);
void disk_file_changed(struct machine *m, const struct stat *st);

/* Durability. fsync of a file: st is what the machine's fd shows; NULL
 * when not known (the whole file is copied). */
void disk_file_synced(struct world *w, struct machine *m, const char *mpath, const struct stat *st);
void disk_dir_synced(struct world *w, struct machine *m, const char *mpath);    /* fsync of a directory */
void disk_all_synced(struct world *w, struct machine *m);                       /* sync, syncfs */

/* A warm start's seed (supervisor/snapshot.c): the file the machine knew
 * before the point as `was` (its template's upper-layer file was_upath)
 * is now the seed's copy `now` (now_upath): its changes not yet durable
 * are the copy's, and its durable content, kept aside at the point in
 * point_dir under the template file's name, is recorded for the copy. */
void disk_rekey_file(const struct world *w, struct machine *m, const char *point_dir, const struct stat *was,
                     const char *was_upath, const struct stat *now, const char *now_upath);
/* crash_disk.c: at a crash, after every process of m is dead. */
void disk_crash(struct world *w, struct machine *m);
/* Copies the machine's disk (its upper layers) to dir/disk/NAME. */
void disk_keep(struct world *w, struct machine *m, const char *dir);

/* Calls visit for every entry below upper-layer directory upath, parents
 * first, with its path below mpath; disk_walk_layers walks every upper
 * layer of m, naming entries by machine path (the config's directory's by
 * CONFIG_MOUNT). In host directory order: sort what takes draws. */
typedef void (*disk_visit)(const char *upath, const char *mpath, const struct stat *st, void *arg);
void disk_walk(const char *upath, const char *mpath, disk_visit visit, void *arg);
void disk_walk_layers(const struct world *w, const struct machine *m, disk_visit visit, void *arg);

/* Copies in to out, both at offset 0 and out empty (a reflink where the
 * file system has them, else in the kernel). 0, or -1 with errno. */
int disk_copy_fd(int in, int out);

/* durable.c internals shared with crash_disk.c. */
int disk_copy_file(const char *src, const char *dst);
/* Where the durable content of the file at upper path upath is kept: named
 * by its inode and birth time, so that a file given a dead file's inode
 * number never finds the dead one's content. */
void disk_content_path(const struct world *w, const struct machine *m, const char *upath, char *out, size_t len);
/* Puts back what the upper layer held at upper path `upath` before op. */
void disk_restore_prior(const struct world *w, const struct machine *m, const struct name_op *op, int i,
                        const char *upath);
void disk_remove_tree(const char *path);
void disk_drop_op(struct name_op *op, void *machine_and_world);
#endif
