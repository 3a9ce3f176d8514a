/* File times (disk/ftimes.h) at the calls that change files through an fd
 * or a path without writing: ftruncate, fallocate, truncate, utimensat
 * and friends. */
#include "syscalls/sys.h"
#include "disk/durable.h"
#include "world/tracer.h"
#include <fcntl.h>
#include <linux/falloc.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

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
