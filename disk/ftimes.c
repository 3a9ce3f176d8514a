/* File times on virtual time. The kernel stamps what a machine writes with
 * the host's clock, years after the machine's own, and different in every
 * run. dsim notes each file a machine changes (writes, truncates, creates,
 * entries added to or removed from a directory, touch) with the machine's
 * wall-clock time of the change, and stamps those times on the files at
 * the machine's next step (step.c), once the change is done and before any
 * of its threads can look: a noted fd copy is held only that long, so no
 * flock, lease or close is seen late. The overlay is mounted noatime, so
 * reads leave no host time either; ctimes are rewritten in stat results
 * (stat.c), which also stamps files changed behind dsim's back (writes
 * through shared mappings) when a stat first sees them. */
#include "disk/ftimes.h"
#include "disk/layout.h"
#include "disk/confined.h"
#include "base/xalloc.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The change at the machine's wall-clock time now. */
static struct dirty_file *note(struct world *w, struct machine *m, dev_t dev, ino_t ino, const char *upath)
{
    for (size_t i = 0; i < m->ndirty; i++) {
        struct dirty_file *d = &m->dirty[i];
        if (upath ? d->upath && !strcmp(d->upath, upath) : !d->upath && d->dev == dev && d->ino == ino) {
            d->at_ns = machine_realtime(w, m);
            return NULL;
        }
    }
    GROW(m->dirty, m->ndirty, m->capdirty);
    struct dirty_file *d = &m->dirty[m->ndirty++];
    *d = (struct dirty_file){ dev, ino, -1, upath ? strdup(upath) : NULL, machine_realtime(w, m) };
    return d;
}

bool outside_disk(const struct world *w, const struct stat *st)
{
    for (int i = 0; i < 4; i++)
        if (w->host_devs[i] && st->st_dev == w->host_devs[i]) return true;
    return false;
}

void ftimes_note_fd(struct world *w, struct thread *t, int copy, const struct stat *st)
{
    /* Files outside the machine's disk (its captured output in the run
     * directory, dsim's own output file under dsim exec) are the host's. */
    if (outside_disk(w, st)) {
        close(copy);
        return;
    }
    struct dirty_file *d = note(w, t->proc->m, st->st_dev, st->st_ino, NULL);
    if (d) d->copy = copy;
    else close(copy);
}

void ftimes_note_path(struct world *w, struct machine *m, const char *mpath)
{
    char upath[4096];
    if (disk_upper(w, m, mpath, upath, sizeof upath)) note(w, m, 0, 0, upath);
    /* The machine's own /dev/shm is no layer of its disk: reached
     * through its root. */
    else if (!strncmp(mpath, "/dev/shm/", 9) || !strcmp(mpath, "/dev/shm")) {
        snprintf(upath, sizeof upath, "/proc/%d/root%s", (int)m->root_pid, mpath);
        note(w, m, 0, 0, upath);
    }
}

/* Stamps every noted file with its time, and forgets them. */
void ftimes_flush(struct world *w, struct machine *m)
{
    (void)w;
    m->stamped = true;
    for (size_t i = 0; i < m->ndirty; i++) {
        struct dirty_file *d = &m->dirty[i];
        struct timespec ts[2];
        ts[0].tv_sec = ts[1].tv_sec = (time_t)(d->at_ns / 1000000000);
        ts[0].tv_nsec = ts[1].tv_nsec = (long)(d->at_ns % 1000000000);
        if (d->copy >= 0) {
            futimens(d->copy, ts);
            close(d->copy);
        } else {
            cf_utimens(d->upath, ts);
            free(d->upath);
        }
    }
    m->ndirty = 0;
}

void ftimes_free(struct machine *m)
{
    for (size_t i = 0; i < m->ndirty; i++) {
        if (m->dirty[i].copy >= 0) close(m->dirty[i].copy);
        free(m->dirty[i].upath);
    }
    free(m->dirty);
    m->dirty = NULL;
    m->ndirty = m->capdirty = 0;
}
