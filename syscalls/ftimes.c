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
#include "disk/confined.h"
#include "syscalls/sys.h"
#include "disk/durable.h"
#include "world/tracer.h"
#include "base/xalloc.h"
#include <fcntl.h>
#include <linux/falloc.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
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
    if (m->ndirty == m->capdirty) {
        m->capdirty = m->capdirty ? 2 * m->capdirty : 16;
        m->dirty = xrealloc(m->dirty, m->capdirty * sizeof *m->dirty);
    }
    struct dirty_file *d = &m->dirty[m->ndirty++];
    *d = (struct dirty_file){ dev, ino, -1, upath ? strdup(upath) : NULL, machine_realtime(w, m) };
    return d;
}

bool outside_disk(const struct world *w, const struct stat *st)
{
    for (int i = 0; i < 3; i++)
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
        snprintf(upath, sizeof upath, "/proc/%d/root%s", (int)m->init_pid, mpath);
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

/* The regular file open as the tracee's fd changes now. */
enum sys_action ftimes_fd_note(struct world *w, struct thread *t, int fd)
{
    struct stat st;
    int copy = fd_probe(w, t, fd, &st);
    if (copy < 0) return SYS_PASS;
    if (!S_ISREG(st.st_mode)) {
        close(copy);
        return SYS_PASS;
    }
    disk_file_changed(t->proc->m, &st);         /* for the next fsync: all of it */
    ftimes_note_fd(w, t, copy, &st);
    return SYS_PASS;
}

/* ftruncate, futimens: changes through an fd. */
enum sys_action ftimes_fd_change(struct world *w, struct thread *t) { return ftimes_fd_note(w, t, (int)ARG0(t)); }

/* fallocate. A file outside the machine's disk (its stdout and stderr in
 * the run directory, the caller's file under dsim exec) has no room to
 * reserve: an allocating mode gets ENOSPC, as on a full file system, after
 * Linux's earlier checks; a KEEP_SIZE of a terabyte would otherwise fill the
 * host, unseen. Not EOPNOTSUPP: glibc's posix_fallocate would then write a
 * byte into every block itself. Punching holes frees space and passes. */
enum sys_action sys_fallocate(struct world *w, struct thread *t)
{
    struct stat st;
    int mode = (int)ARG1(t);
    int64_t off = (int64_t)ARG2(t), len = (int64_t)ARG3(t);
    int copy = fd_probe(w, t, (int)ARG0(t), &st);
    if (copy < 0) return SYS_PASS;
    if (!S_ISREG(st.st_mode) || !outside_disk(w, &st) || (mode & (FALLOC_FL_PUNCH_HOLE | FALLOC_FL_COLLAPSE_RANGE))) {
        close(copy);
        return ftimes_fd_note(w, t, (int)ARG0(t));
    }
    int fl = fcntl(copy, F_GETFL);
    close(copy);
    if (off < 0 || len <= 0) return emulate(t, -EINVAL);
    if (fl < 0 || (fl & O_ACCMODE) == O_RDONLY) return emulate(t, -EBADF);
    if (off > INT64_MAX - len) return emulate(t, -EFBIG);
    return emulate(t, -ENOSPC);
}

/* A path's file changes now (noted before the call: the stamp waits for
 * the next step anyway). */
static enum sys_action path_change(struct world *w, struct thread *t, int dirfd, uint64_t addr)
{
    char mpath[4096];
    if (disk_entry_mpath(t, dirfd, addr, mpath, sizeof mpath)) {
        ftimes_note_path(w, t->proc->m, mpath);
        disk_path_changed(t, mpath);
    }
    return SYS_PASS;
}

enum sys_action sys_truncate(struct world *w, struct thread *t) { return path_change(w, t, AT_FDCWD, ARG0(t)); }

/* Whether a times argument at addr asks for the current time: NULL, or
 * (utimensat) a UTIME_NOW. */
static bool wants_now(struct thread *t, uint64_t addr, bool nsec)
{
    if (!addr) return true;
    struct timespec ts[2];
    return nsec && mem_read(t->tid, addr, ts, sizeof ts) == 0 &&
           (ts[0].tv_nsec == UTIME_NOW || ts[1].tv_nsec == UTIME_NOW);
}

/* utimensat, futimesat, utimes, utime (touch): times the program gives
 * stand (earlier changes were stamped as this step began); "now" is the
 * machine's now. */
enum sys_action sys_utimes(struct world *w, struct thread *t)
{
    switch (SYSNR(t)) {
    case SYS_utimensat:
        if (!wants_now(t, ARG2(t), true)) return SYS_PASS;
        if (!ARG1(t)) return ftimes_fd_change(w, t);        /* futimens */
        return path_change(w, t, (int)ARG0(t), ARG1(t));
    case SYS_futimesat:
        return wants_now(t, ARG2(t), false) ? path_change(w, t, (int)ARG0(t), ARG1(t)) : SYS_PASS;
    default:        /* utimes, utime */
        return wants_now(t, ARG1(t), false) ? path_change(w, t, AT_FDCWD, ARG0(t)) : SYS_PASS;
    }
}
