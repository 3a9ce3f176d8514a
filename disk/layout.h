/* Where a machine's disk is (layout.c). */
#ifndef DSIM_LAYOUT_H
#define DSIM_LAYOUT_H
#include "world/world.h"

/* The host mounts each machine sees through an overlay; layer N's upper
 * directory is disk/NAME/upperN. Computed once per run. */
void disk_layers_init(struct world *w);
/* Each machine's disk (disk/NAME, where its upper layers and graveyard
 * live) is a tmpfs of its `disk` size, mounted for the run in dsim's own
 * mount namespace: a machine's writes beyond it get ENOSPC, and a run
 * directory never fills the host. 0, or -1 with why. */
int disk_mount(struct world *w, struct machine *m, char *why, size_t len);
/* dsim's own private mount namespace (once per process; before the run
 * directory is opened): false, with why, if it cannot be made. */
bool disk_private_mounts(char *why, size_t len);
void disk_unmount(struct world *w, struct machine *m);
void disk_layers_free(struct world *w);
/* disk/NAME/WHAT in the run directory. */
void disk_dir(const struct world *w, const struct machine *m, const char *what, char *out, size_t len);
/* The upper-layer path of a machine path; false if it is on no overlay
 * (/proc, /dev, /dev/shm: not the machine's disk). */
bool disk_upper(const struct world *w, const struct machine *m, const char *mpath, char *out, size_t len);
/* The host path of a machine path: itself, but below CONFIG_MOUNT (the
 * config's directory). Returns mpath or buf. */
const char *disk_host_path(const struct world *w, const char *mpath, char *buf, size_t len);
/* The machine path of a host path: itself, but below the config's
 * directory (seen at CONFIG_MOUNT). Returns hpath or buf. */
const char *disk_machine_path(const struct world *w, const char *hpath, char *buf, size_t len);
#endif
