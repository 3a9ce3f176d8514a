/* The syscalls that change a machine's names: create (open's part,
 * disk_open), link, symlink, rename, unlink, mkdir, rmdir, mknod. The kernel
 * makes every one of them; dsim notes, around it, what a crash could undo
 * (disk/durable.h). */
#include "syscalls/sys.h"
#include "disk/confined.h"
#include "disk/durable.h"
#include "world/tracer.h"
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

void disk_path_changed(struct thread *t, const char *mpath)
{
    struct stat st;
    int fd = machine_path_open(t->tid, mpath, false, O_PATH);
    if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) disk_file_changed(t->proc->m, &st);
    if (fd >= 0) close(fd);
}

/* The machine path of the entry that path (at addr, relative to dirfd)
 * names, its last component not followed. The directory part is resolved
 * inside the machine: an absolute path from the tracee's root, a relative
 * one from its base directory's machine path, both with RESOLVE_IN_ROOT
 * (an absolute symlink on the way means the machine's /, never the
 * host's), and the result named by the kernel. */
bool disk_entry_mpath(struct thread *t, int dirfd, uint64_t addr, char *out, size_t len)
{
    char path[4096], dir[4096], joined[8200];
    if (mem_read_str(t->tid, addr, path, sizeof path) <= 0) return false;
    size_t n = strlen(path);
    while (n > 1 && path[n - 1] == '/') path[--n] = 0;
    char *slash = strrchr(path, '/');
    const char *last = slash ? slash + 1 : path;
    if (!*last || !strcmp(last, ".") || !strcmp(last, "..")) return false;
    const char *dirpart = !slash ? "." : slash == path ? "/" : (*slash = 0, path);
    int dfd;
    if (path[0] == '/') {
        dfd = machine_path_open(t->tid, dirpart, false, O_PATH | O_DIRECTORY);
    } else {
        char base[64], bpath[4096];
        if (dirfd == AT_FDCWD) snprintf(base, sizeof base, "/proc/%d/cwd", t->tid);
        else snprintf(base, sizeof base, "/proc/%d/fd/%d", t->tid, dirfd);
        ssize_t k = readlink(base, bpath, sizeof bpath - 1);
        if (k <= 0 || bpath[0] != '/') return false;
        bpath[k] = 0;
        snprintf(joined, sizeof joined, "%s/%s", bpath, dirpart);
        dfd = machine_path_open((int)t->proc->m->root_pid, joined, false, O_PATH | O_DIRECTORY);
    }
    if (dfd < 0) return false;
    char self[64];
    snprintf(self, sizeof self, "/proc/self/fd/%d", dfd);
    ssize_t k = readlink(self, dir, sizeof dir - 1);
    close(dfd);
    if (k <= 0 || dir[0] != '/') return false;
    dir[k] = 0;
    return (size_t)snprintf(out, len, "%s/%s", strcmp(dir, "/") ? dir : "", last) < len;
}

/* A new inode at machine path mpath: a number of its own in the machine's
 * stat results, even if the host gave it the number of a file it freed
 * (later numbers would otherwise depend on the host's choice). */
static void new_identity(struct thread *t, const char *mpath)
{
    struct stat st;
    int fd = machine_path_open(t->tid, mpath, true, O_PATH);
    if (fd >= 0 && fstat(fd, &st) == 0) idmap_forget(&t->proc->m->ids, machine_dev_key(t->proc->m, st.st_dev), st.st_ino);
    if (fd >= 0) close(fd);
}

static void name_done(struct world *w, struct thread *t, long result)
{
    struct machine *m = t->proc->m;
    const struct name_op *op = m->names.n ? &m->names.ops[m->names.n - 1] : NULL;     /* this call's */
    if (result >= 0 && op && (op->kind == NOP_CREATE || op->kind == NOP_MKDIR || op->kind == NOP_MKNOD ||
                              op->kind == NOP_SYMLINK))
        new_identity(t, op->path[0]);
    disk_op_end(w, m, result >= 0);
}

/* Notes the operation and sees it through its exit stop. */
static enum sys_action name_op(struct world *w, struct thread *t, enum name_op_kind kind, int dirfd, uint64_t addr,
                               int dirfd2, uint64_t addr2)
{
    char p0[4096], p1[4096];
    if (!disk_entry_mpath(t, dirfd, addr, p0, sizeof p0)) return SYS_PASS;
    if (addr2 && !disk_entry_mpath(t, dirfd2, addr2, p1, sizeof p1)) return SYS_PASS;
    if (!disk_op_begin(w, t->proc->m, kind, p0, addr2 ? p1 : NULL)) return SYS_PASS;
    t->on_exit = name_done;
    return SYS_PASS_EXIT;
}

#define ATFD(x) ((int)(x))

enum sys_action sys_mkdir(struct world *w, struct thread *t)
{
    if (SYSNR(t) == SYS_mkdir) return name_op(w, t, NOP_MKDIR, AT_FDCWD, ARG0(t), 0, 0);
    return name_op(w, t, NOP_MKDIR, ATFD(ARG0(t)), ARG1(t), 0, 0);
}

enum sys_action sys_mknod(struct world *w, struct thread *t)
{
    if (SYSNR(t) == SYS_mknod) return name_op(w, t, NOP_MKNOD, AT_FDCWD, ARG0(t), 0, 0);
    return name_op(w, t, NOP_MKNOD, ATFD(ARG0(t)), ARG1(t), 0, 0);
}

enum sys_action sys_unlink(struct world *w, struct thread *t)
{
    switch (SYSNR(t)) {
    case SYS_unlink: return name_op(w, t, NOP_UNLINK, AT_FDCWD, ARG0(t), 0, 0);
    case SYS_rmdir: return name_op(w, t, NOP_RMDIR, AT_FDCWD, ARG0(t), 0, 0);
    default:
        return name_op(w, t, (ARG2(t) & AT_REMOVEDIR) ? NOP_RMDIR : NOP_UNLINK, ATFD(ARG0(t)), ARG1(t), 0, 0);
    }
}

enum sys_action sys_rename(struct world *w, struct thread *t)
{
    if (SYSNR(t) == SYS_rename) return name_op(w, t, NOP_RENAME, AT_FDCWD, ARG0(t), AT_FDCWD, ARG1(t));
    bool exchange = SYSNR(t) == SYS_renameat2 && (ARG4(t) & RENAME_EXCHANGE);
    return name_op(w, t, exchange ? NOP_EXCHANGE : NOP_RENAME, ATFD(ARG0(t)), ARG1(t), ATFD(ARG2(t)), ARG3(t));
}

/* link and symlink make one new name: the second path. */
enum sys_action sys_link(struct world *w, struct thread *t)
{
    switch (SYSNR(t)) {
    case SYS_link: return name_op(w, t, NOP_LINK, AT_FDCWD, ARG1(t), 0, 0);
    case SYS_linkat: return name_op(w, t, NOP_LINK, ATFD(ARG2(t)), ARG3(t), 0, 0);
    case SYS_symlink: return name_op(w, t, NOP_SYMLINK, AT_FDCWD, ARG1(t), 0, 0);
    default: return name_op(w, t, NOP_SYMLINK, ATFD(ARG1(t)), ARG2(t), 0, 0);    /* symlinkat */
    }
}

/* open with O_CREAT (and creat): a name operation only if nothing is there. */
enum sys_action disk_open(struct world *w, struct thread *t, int dirfd, uint64_t addr, int flags)
{
    struct machine *m = t->proc->m;
    if (flags & O_DSYNC) m->sync_opened = true;
    if (!(flags & (O_CREAT | O_TRUNC)) || (flags & O_TMPFILE) == O_TMPFILE) return SYS_PASS;
    char p[4096];
    if (!disk_entry_mpath(t, dirfd, addr, p, sizeof p)) return SYS_PASS;
    if ((flags & O_TRUNC) && (flags & O_ACCMODE) != O_RDONLY) {
        ftimes_note_path(w, m, p);
        disk_path_changed(t, p);
    }
    if (!(flags & O_CREAT) || disk_exists(w, m, p)) return SYS_PASS;
    if (!disk_op_begin(w, m, NOP_CREATE, p, NULL)) return SYS_PASS;
    t->on_exit = name_done;
    return SYS_PASS_EXIT;
}
