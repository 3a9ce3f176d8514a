/* Where a machine's disk is: the host mounts its overlays cover (layers),
 * the tmpfs its upper layers live on, and the paths between the machine's
 * names and those of the host and the upper layers. */
#include "base/xalloc.h"
#include "disk/layout.h"
#include "disk/confined.h"
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>

/* ---- layers ---- */

static bool kernel_fs(const char *path)
{
    static const char *const kernel[] = { "/proc", "/sys", "/dev" };
    for (int i = 0; i < 3; i++) {
        size_t n = strlen(kernel[i]);
        if (!strncmp(path, kernel[i], n) && (path[n] == 0 || path[n] == '/')) return true;
    }
    return false;
}

void disk_layers_init(struct world *w)
{
    char line[4096];
    cf_set_root(w->run_dir);    /* the disks below hold the machines' own names */
    w->layers = calloc(1, sizeof *w->layers);
    w->layers[w->nlayers++] = strdup("/");
    const char *slash = strrchr(w->run_dir, '/');
    size_t runs_len = slash ? (size_t)(slash - w->run_dir) + 1 : strlen(w->run_dir);     /* "<runs>/" */
    FILE *f = fopen("/proc/self/mounts", "re");
    while (f && fgets(line, sizeof line, f)) {
        char target[2048];
        if (sscanf(line, "%*s %2047s", target) != 1 || !strcmp(target, "/") || kernel_fs(target)) continue;
        /* Not a run directory of this process's: this run's, nor earlier
         * ones' still mounted while they are removed (rundir.c), which
         * made a seed's layers depend on the seeds its worker ran before. */
        if (!strncmp(target, w->run_dir, runs_len)) continue;
        w->layers = xrealloc(w->layers, (w->nlayers + 1) * sizeof *w->layers);
        w->layers[w->nlayers++] = strdup(target);
    }
    if (f) fclose(f);
}

/* ---- the disk itself ---- */

/* dsim's own mount namespace, made once per process and private: the
 * machines' disks are mounted there, never on the host, and go with dsim
 * however it ends. Made before any fd into the run directory is opened:
 * an fd keeps the namespace it was opened in, whose mounts its lookups
 * see. */
bool disk_private_mounts(char *why, size_t len)
{
    static int state;               /* 0 not yet, 1 made, -1 failed */
    if (state == 0) {
        state = unshare(CLONE_NEWNS) == 0 && mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == 0 ? 1 : -1;
        if (state < 0) snprintf(why, len, "cannot make dsim's own mount namespace: %s", strerror(errno));
    }
    return state > 0;
}

int disk_mount(struct world *w, struct machine *m, char *why, size_t len)
{
    if (!disk_private_mounts(why, len)) return -1;
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/disk", w->run_dir);
    mkdir(dir, 0755);
    disk_dir(w, m, "", dir, sizeof dir);
    dir[strlen(dir) - 1] = 0;       /* disk/NAME */
    mkdir(dir, 0755);
    uint64_t size = m->conf->disk_bytes ? m->conf->disk_bytes : DEFAULT_DISK_BYTES;
    /* A size the machine's writes meet as ENOSPC, a fixed number of
     * inodes (tmpfs would take half the host's memory in pages), and
     * 32-bit inode numbers, which leave the overlay's xino room. */
    char opts[128];
    snprintf(opts, sizeof opts, "size=%llu,nr_inodes=%llu,mode=0755,inode32", (unsigned long long)size,
             (unsigned long long)(size / 16384 > 65536 ? size / 16384 : 65536));
    if (mount("tmpfs", dir, "tmpfs", MS_NOSUID | MS_NODEV, opts) != 0) {
        snprintf(why, len, "cannot mount machine %s's disk: %s", m->name, strerror(errno));
        return -1;
    }
    return 0;
}

void disk_unmount(struct world *w, struct machine *m)
{
    char dir[1024];
    disk_dir(w, m, "", dir, sizeof dir);
    dir[strlen(dir) - 1] = 0;
    umount2(dir, MNT_DETACH);
}

void disk_layers_free(struct world *w)
{
    for (size_t i = 0; i < w->nlayers; i++) free(w->layers[i]);
    free(w->layers);
    w->layers = NULL;
    w->nlayers = 0;
}

void disk_dir(const struct world *w, const struct machine *m, const char *what, char *out, size_t len)
{
    snprintf(out, len, "%s/disk/%s/%s", w->run_dir, m->name, what);
}

static bool under(const char *path, const char *top)
{
    size_t n = strlen(top);
    return !strcmp(top, "/") || (!strncmp(path, top, n) && (path[n] == 0 || path[n] == '/'));
}

/* Machines see the config's directory at CONFIG_MOUNT too (machine.c):
 * paths there are its host paths on the disk, and the disk's entries there
 * are named by them. */
const char *disk_host_path(const struct world *w, const char *mpath, char *buf, size_t len)
{
    if (!w->conf->dir_mounted || !under(mpath, CONFIG_MOUNT)) return mpath;
    snprintf(buf, len, "%s%s", w->conf->dir, mpath + strlen(CONFIG_MOUNT));
    return buf;
}

const char *disk_machine_path(const struct world *w, const char *hpath, char *buf, size_t len)
{
    if (!w->conf->dir_mounted || !under(hpath, w->conf->dir)) return hpath;
    snprintf(buf, len, "%s%s", CONFIG_MOUNT, hpath + strlen(w->conf->dir));
    return buf;
}

bool disk_upper(const struct world *w, const struct machine *m, const char *mpath, char *out, size_t len)
{
    char host[4096];
    mpath = disk_host_path(w, mpath, host, sizeof host);
    if (mpath[0] != '/' || kernel_fs(mpath) || strstr(mpath, " (deleted)")) return false;
    size_t best = 0, bestlen = 0;
    for (size_t i = 0; i < w->nlayers; i++)
        if (under(mpath, w->layers[i]) && strlen(w->layers[i]) > bestlen) {
            best = i;
            bestlen = strlen(w->layers[i]);
        }
    char layer[32];
    snprintf(layer, sizeof layer, "upper%zu", best);
    disk_dir(w, m, layer, out, len);
    size_t n = strlen(out);
    snprintf(out + n, len - n, "%s", best ? mpath + bestlen : mpath);
    return true;
}
