/* The syscalls that make a machine's disk durable: fsync, fdatasync, sync,
 * syncfs, and writes through an O_SYNC fd. The kernel makes every one of
 * them; dsim notes what a crash can no longer undo (disk/durable.h). */
#include "syscalls/sys.h"
#include "disk/confined.h"
#include "disk/durable.h"
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

/* What a tracee fd shows fstat (st), or NULL. */
static const struct stat *fd_stat(struct world *w, struct thread *t, int fd, struct stat *st)
{
    int copy = fd_probe(w, t, fd, st);
    if (copy < 0) return NULL;
    close(copy);
    return st;
}

/* The machine path of what a tracee fd refers to, or false. */
static bool fd_mpath(struct thread *t, int fd, char *out, size_t len)
{
    char link[64];
    snprintf(link, sizeof link, "/proc/%d/fd/%d", t->tid, fd);
    ssize_t n = readlink(link, out, len - 1);
    if (n <= 0 || out[0] != '/') return false;
    out[n] = 0;
    return true;
}

/* fsync, fdatasync: a file's content, a directory's entries, and (but
 * under strict_names) every name operation so far. */
enum sys_action sys_fsync(struct world *w, struct thread *t)
{
    char mpath[4096], upath[4096];
    struct machine *m = t->proc->m;
    struct stat st, fst;
    if (!fd_mpath(t, (int)ARG0(t), mpath, sizeof mpath) || !disk_upper(w, m, mpath, upath, sizeof upath))
        return SYS_PASS;
    if (cf_lstat(upath, &st) == 0 && S_ISDIR(st.st_mode)) disk_dir_synced(w, m, mpath);
    else disk_file_synced(w, m, mpath, fd_stat(w, t, (int)ARG0(t), &fst));   /* a journal commit, even unwritten */
    return SYS_PASS;
}

/* sync and syncfs: everything the machine wrote is durable now. */
enum sys_action sys_sync(struct world *w, struct thread *t)
{
    disk_all_synced(w, t->proc->m);
    return SYS_PASS;
}

static void sync_write_done(struct world *w, struct thread *t, long result)
{
    char mpath[4096];
    struct stat st;
    int fd = t->call.sync_write.fd;
    if (result > 0 && fd_mpath(t, fd, mpath, sizeof mpath)) disk_file_synced(w, t->proc->m, mpath, fd_stat(w, t, fd, &st));
}

/* A write through an O_SYNC or O_DSYNC fd is durable when it returns. */
enum sys_action disk_sync_write(struct world *w, struct thread *t, int fd)
{
    t->call.sync_write.fd = fd;
    t->on_exit = sync_write_done;
    return SYS_PASS_EXIT;
}
