#include "base/xalloc.h"
#include "disk/durable.h"
#include "disk/layout.h"
#include "disk/confined.h"
#include "disk/ftimes.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <sys/mount.h>
#include <sched.h>
#include <unistd.h>

bool disk_exists(const struct world *w, const struct machine *m, const char *mpath)
{
    char upath[4096];
    if (!disk_upper(w, m, mpath, upath, sizeof upath)) return true;
    /* As the machine sees it, inside its own root: the overlay has the
     * last word (a whiteout, or an opaque directory made where the host
     * has one of that name, hides the host's file). */
    int fd = machine_path_open((int)m->root_pid, mpath, true, O_PATH);
    if (fd >= 0) close(fd);
    return fd >= 0;
}

/* ---- files ---- */

/* The parents of a path outside the disks (a --output directory, whose
 * names below it come from the machine: they never follow a symlink). */
static void mkdirs_outside(const char *path)
{
    char p[4096];
    snprintf(p, sizeof p, "%s", path);
    for (char *s = p + 1; (s = strchr(s, '/')); s++) {
        *s = 0;
        mkdir(p, 0755);
        *s = '/';
    }
}

/* Opens a file of a machine's disk (confined) to read or write, or a host
 * file (a lower layer's, by the host's own names) only to read. */
static int open_any(const char *path, int flags, mode_t mode)
{
    int fd = cf_open(path, flags, mode);
    if (fd >= 0 || errno != EXDEV || (flags & O_ACCMODE) != O_RDONLY) return fd;
    return open(path, flags | O_CLOEXEC, mode);
}

/* Writes all of buf, through interruptions. */
static int write_all(int fd, const char *buf, size_t len)
{
    while (len) {
        ssize_t n = write(fd, buf, len);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return -1;
        buf += n;
        len -= (size_t)n;
    }
    return 0;
}

/* Copies in to out, both at offset 0 and out empty: a reflink where the
 * file system has them (btrfs, xfs: no data moves), else copy_file_range
 * (in the kernel: on ext4 about twice as fast as read and write), else
 * read and write. The watchdog's tick interrupts the first two (EINTR, or a
 * short copy): they go on where they stopped. */
int disk_copy_fd(int in, int out)
{
    int r;
    while ((r = ioctl(out, FICLONE, in)) != 0 && errno == EINTR) {}
    if (r == 0) return 0;
    ssize_t n;
    bool moved = false;
    for (;;) {
        n = copy_file_range(in, NULL, out, NULL, (size_t)1 << 30, 0);
        if (n > 0) moved = true;
        else if (n == 0) return 0;
        else if (errno != EINTR) break;
    }
    if (moved || (errno != EXDEV && errno != EINVAL && errno != ENOSYS && errno != EOPNOTSUPP)) return -1;
    static char buf[1 << 20];
    while ((n = read(in, buf, sizeof buf)) != 0) {
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 || write_all(out, buf, (size_t)n) != 0) return -1;
    }
    return 0;
}

/* Copies src over dst in place (dst keeps its inode if it exists). dst is
 * on a machine's disk: nothing outside it is ever written. */
int disk_copy_file(const char *src, const char *dst)
{
    int in = open_any(src, O_RDONLY, 0);
    if (in < 0) return -1;
    cf_mkdirs_for(dst);
    int out = open_any(dst, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int r = out < 0 ? -1 : disk_copy_fd(in, out);
    close(in);
    if (out >= 0) close(out);
    return r;
}

void disk_content_dir(const struct world *w, const struct machine *m, char *out, size_t len)
{
    snprintf(out, len, "%s/content/%s", w->run_dir, m->name);
}

void disk_content_path(const struct world *w, const struct machine *m, const char *upath, char *out, size_t len)
{
    char dir[1024];
    struct statx sx = { 0 };
    disk_content_dir(w, m, dir, sizeof dir);
    cf_statx(upath, STATX_INO | STATX_BTIME, &sx);
    snprintf(out, len, "%s/%llu-%lld.%u", dir, (unsigned long long)sx.stx_ino,
             (sx.stx_mask & STATX_BTIME) ? (long long)sx.stx_btime.tv_sec : 0LL,
             (sx.stx_mask & STATX_BTIME) ? sx.stx_btime.tv_nsec : 0u);
}

static void grave_path(const struct world *w, const struct machine *m, unsigned long n, char *out, size_t len)
{
    char dir[1024];
    disk_dir(w, m, "grave", dir, sizeof dir);
    snprintf(out, len, "%s/%lu", dir, n);
}

void disk_remove_tree(const char *path) { cf_remove_tree(path); }

void disk_walk(const char *upath, const char *mpath, disk_visit visit, void *arg)
{
    DIR *d = cf_opendir(upath);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        char usub[4096], msub[4096];
        struct stat st;
        snprintf(usub, sizeof usub, "%s/%s", upath, e->d_name);
        snprintf(msub, sizeof msub, "%s/%s", strcmp(mpath, "/") ? mpath : "", e->d_name);
        if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
        visit(usub, msub, &st, arg);
        if (S_ISDIR(st.st_mode)) disk_walk(usub, msub, visit, arg);
    }
    if (d) closedir(d);
}

struct machine_walk { const struct world *w; disk_visit visit; void *arg; };

/* The directories above the config's (made on the disk when a file in it
 * was) are the host's layout, not the machine's: left out. */
static void visit_by_machine_path(const char *upath, const char *hpath, const struct stat *st, void *arg)
{
    const struct machine_walk *mw = arg;
    const struct config *c = mw->w->conf;
    size_t n = strlen(hpath);
    if (c->dir_mounted && S_ISDIR(st->st_mode) && !strncmp(c->dir, hpath, n) && c->dir[n] == '/') return;
    char mpath[4096];
    mw->visit(upath, disk_machine_path(mw->w, hpath, mpath, sizeof mpath), st, mw->arg);
}

void disk_walk_layers(const struct world *w, const struct machine *m, disk_visit visit, void *arg)
{
    struct machine_walk mw = { w, visit, arg };
    for (size_t i = 0; i < w->nlayers; i++) {
        char layer[32], upath[1024];
        snprintf(layer, sizeof layer, "upper%zu", i);
        disk_dir(w, m, layer, upath, sizeof upath);
        disk_walk(upath, w->layers[i], visit_by_machine_path, &mw);
    }
}

/* ---- name operations ---- */

/* Notes what upper path upath holds now, so that a crash can put it back. */
static void save_prior(struct world *w, struct machine *m, struct name_op *op, int i, const char *upath)
{
    struct stat st;
    op->prior[i] = PRIOR_NONE;
    if (cf_lstat(upath, &st) != 0) return;
    if (S_ISCHR(st.st_mode) && st.st_rdev == makedev(0, 0)) {
        op->prior[i] = PRIOR_WHITEOUT;
    } else if (S_ISDIR(st.st_mode)) {
        op->prior[i] = PRIOR_DIR;
        op->mode[i] = st.st_mode & 07777;
    } else {
        char grave[4096];
        op->grave[i] = ++m->grave_seq;
        grave_path(w, m, op->grave[i], grave, sizeof grave);
        cf_mkdirs_for(grave);
        if (cf_link(upath, grave) == 0) op->prior[i] = PRIOR_SAVED;
    }
}

void disk_restore_prior(const struct world *w, const struct machine *m, const struct name_op *op, int i,
                        const char *upath)
{
    char grave[4096];
    switch (op->prior[i]) {
    case PRIOR_NONE:
        break;
    case PRIOR_WHITEOUT:
        cf_mkdirs_for(upath);
        cf_mknod(upath, S_IFCHR, makedev(0, 0));
        break;
    case PRIOR_DIR:
        cf_mkdirs_for(upath);
        cf_mkdir(upath, op->mode[i]);
        /* Whatever the lower layer has there stays hidden, as the removed
         * directory's whiteouts hid it. */
        cf_set_opaque(upath);
        break;
    case PRIOR_SAVED:
        grave_path(w, m, op->grave[i], grave, sizeof grave);
        cf_mkdirs_for(upath);
        cf_link(grave, upath);
        break;
    }
}

struct name_op *disk_op_begin(struct world *w, struct machine *m, enum name_op_kind kind, const char *mpath,
                              const char *mpath2)
{
    char upath[2][4096];
    if (!disk_upper(w, m, mpath, upath[0], sizeof upath[0])) return NULL;
    if (mpath2 && !disk_upper(w, m, mpath2, upath[1], sizeof upath[1])) return NULL;
    struct name_op *op = oplog_add(&m->names, kind, mpath, mpath2);
    if (!op) return NULL;
    /* A rename's source is put back by renaming it back; its target, and
     * every other operation's path, from what is saved here. */
    if (kind != NOP_RENAME && kind != NOP_EXCHANGE) save_prior(w, m, op, 0, upath[0]);
    if (kind == NOP_RENAME) save_prior(w, m, op, 1, upath[1]);
    return op;
}

/* A file that dies with its last name loses its durable content too, or a
 * new file given the same inode number would find it. */
void disk_drop_op(struct name_op *op, void *machine_and_world)
{
    void **mw = machine_and_world;
    struct machine *m = mw[0];
    const struct world *w = mw[1];
    char grave[4096], content[4096];
    for (int i = 0; i < 2; i++) {
        struct stat st;
        if (op->prior[i] != PRIOR_SAVED) continue;
        grave_path(w, m, op->grave[i], grave, sizeof grave);
        if (cf_lstat(grave, &st) == 0 && st.st_nlink == 1) {
            disk_content_path(w, m, grave, content, sizeof content);
            cf_unlink(content);
        }
        cf_unlink(grave);
    }
}

static void compact(struct world *w, struct machine *m)
{
    void *mw[2] = { m, w };
    oplog_compact(&m->names, disk_drop_op, mw);
}

/* A file made now has no durable content yet: it would come back empty. */
static void record_empty(struct world *w, struct machine *m, const char *mpath)
{
    char upath[4096], content[4096];
    struct stat st;
    if (!disk_upper(w, m, mpath, upath, sizeof upath) || cf_lstat(upath, &st) != 0 || !S_ISREG(st.st_mode)) return;
    disk_content_path(w, m, upath, content, sizeof content);
    cf_mkdirs_for(content);
    int fd = cf_open(content, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) close(fd);
}

#define MAX_NAME_OPS 4096   /* older ones count as committed: bounds the graveyard */

void disk_op_end(struct world *w, struct machine *m, bool done)
{
    struct oplog *l = &m->names;
    if (!l->n) return;
    struct name_op *op = &l->ops[l->n - 1];
    if (!done) {
        op->durable = true;     /* nothing to undo: drop it with its saved files */
        compact(w, m);
        return;
    }
    if (op->kind == NOP_CREATE || op->kind == NOP_MKNOD) record_empty(w, m, op->path[0]);
    /* Times: the new entry's, and its directories' (entries changed). */
    if (op->kind <= NOP_MKNOD && op->kind != NOP_LINK) ftimes_note_path(w, m, op->path[0]);
    for (int i = 0; i < 2; i++)
        if (op->dir[i]) ftimes_note_path(w, m, op->dir[i]);
    if (l->n > MAX_NAME_OPS) {
        oplog_limit(l, MAX_NAME_OPS);
        compact(w, m);
    }
}

/* ---- durability ---- */

/* A journal commit: every name operation so far is durable. ext4 and xfs
 * keep one journal per filesystem, and any fsync commits it; POSIX alone
 * (strict_names) promises only the synced directory's entries. */
static void commit(struct world *w, struct machine *m)
{
    if (!m->names.n) return;
    oplog_all_synced(&m->names);
    compact(w, m);
}

void disk_file_written(struct machine *m, const struct stat *st, uint64_t off, uint64_t len)
{
    unsynced_write(&m->unsynced, st->st_dev, st->st_ino, off, len);
}

void disk_file_changed(struct machine *m, const struct stat *st)
{
    unsynced_whole(&m->unsynced, st->st_dev, st->st_ino);
}

void disk_rekey_file(const struct world *w, struct machine *m, const char *point_dir, const struct stat *was,
                     const char *was_upath, const struct stat *now, const char *now_upath)
{
    const struct unsynced_file *f = unsynced_get(&m->unsynced, was->st_dev, was->st_ino);
    if (f) {
        struct unsynced_file changes = *f;
        if (changes.whole) unsynced_whole(&m->unsynced, now->st_dev, now->st_ino);
        for (int i = 0; !changes.whole && i < changes.n; i++)
            unsynced_write(&m->unsynced, now->st_dev, now->st_ino, changes.r[i].start, changes.r[i].end - changes.r[i].start);
        unsynced_synced(&m->unsynced, was->st_dev, was->st_ino);
    }
    char rec[4096], kept[4200], mine[4096];
    struct stat st;
    disk_content_path(w, m, was_upath, rec, sizeof rec);
    snprintf(kept, sizeof kept, "%s/%s", point_dir, strrchr(rec, '/') + 1);
    if (cf_lstat(kept, &st) != 0) return;
    disk_content_path(w, m, now_upath, mine, sizeof mine);
    disk_copy_file(kept, mine);
}

/* Brings an existing durable copy up to date with the ranges written
 * since; false if it cannot (then the caller copies the whole file). */
static bool patch_file(const char *upath, const char *content, const struct unsynced_file *f)
{
    int in = cf_open(upath, O_RDONLY, 0), out = in >= 0 ? cf_open(content, O_WRONLY, 0) : -1;
    struct stat st;
    bool ok = out >= 0 && fstat(in, &st) == 0;
    char buf[65536];
    for (int i = 0; ok && i < f->n; i++) {
        uint64_t end = f->r[i].end < (uint64_t)st.st_size ? f->r[i].end : (uint64_t)st.st_size;
        for (uint64_t at = f->r[i].start; ok && at < end;) {
            size_t want = end - at < sizeof buf ? (size_t)(end - at) : sizeof buf;
            ssize_t n = pread(in, buf, want, (off_t)at);
            ok = n > 0 && pwrite(out, buf, (size_t)n, (off_t)at) == n;
            at += n > 0 ? (uint64_t)n : 0;
        }
    }
    ok = ok && ftruncate(out, st.st_size) == 0;
    if (in >= 0) close(in);
    if (out >= 0) close(out);
    return ok;
}

void disk_file_synced(struct world *w, struct machine *m, const char *mpath, const struct stat *fst)
{
    char upath[4096], content[4096];
    struct stat st;
    if (!w->conf->strict_names) commit(w, m);
    const struct unsynced_file *f = fst ? unsynced_get(&m->unsynced, fst->st_dev, fst->st_ino) : NULL;
    if (fst && !f) return;      /* unchanged since it was last durable */
    if (!disk_upper(w, m, mpath, upath, sizeof upath) || cf_lstat(upath, &st) != 0 || !S_ISREG(st.st_mode)) return;
    disk_content_path(w, m, upath, content, sizeof content);
    struct stat rec;
    if (!f || f->whole || cf_lstat(content, &rec) != 0 || !patch_file(upath, content, f)) disk_copy_file(upath, content);
    if (fst) unsynced_synced(&m->unsynced, fst->st_dev, fst->st_ino);
}

void disk_dir_synced(struct world *w, struct machine *m, const char *mpath)
{
    if (!w->conf->strict_names) commit(w, m);
    else if (oplog_dir_synced(&m->names, mpath)) compact(w, m);
}

static void sync_entry(const char *upath, const char *mpath, const struct stat *st, void *mw)
{
    (void)upath;
    void **p = mw;
    if (S_ISREG(st->st_mode)) disk_file_synced(p[1], p[0], mpath, NULL);
}

void disk_all_synced(struct world *w, struct machine *m)
{
    commit(w, m);
    void *mw[2] = { m, w };
    disk_walk_layers(w, m, sync_entry, mw);
    unsynced_clear(&m->unsynced);
}

/* ---- keeping a failing seed's disk ---- */

/* A file of the disk copied to the --output directory (the user's): made
 * anew, never through a symlink. */
static void keep_copy(const char *upath, const char *dst)
{
    int in = cf_open(upath, O_RDONLY, 0);
    int out = in < 0 ? -1 : open(dst, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (out >= 0 && disk_copy_fd(in, out) != 0) {}
    if (in >= 0) close(in);
    if (out >= 0) close(out);
}

/* Copies one entry to the same machine path below the keep directory.
 * Whiteouts (deletions of host files) and device nodes are not copied. */
static void keep_entry(const char *upath, const char *mpath, const struct stat *st, void *keepdir)
{
    char dst[4096], target[4096];
    snprintf(dst, sizeof dst, "%s%s", (const char *)keepdir, mpath);
    ssize_t n;
    mkdirs_outside(dst);
    if (S_ISDIR(st->st_mode)) mkdir(dst, 0755);
    else if (S_ISREG(st->st_mode)) keep_copy(upath, dst);
    else if (S_ISLNK(st->st_mode) && (n = cf_readlink(upath, target, sizeof target - 1)) > 0) {
        target[n] = 0;
        if (symlink(target, dst) != 0) {}
    }
}

void disk_keep(struct world *w, struct machine *m, const char *dir)
{
    char keepdir[4096];
    snprintf(keepdir, sizeof keepdir, "%s/disk/%s", dir, m->name);
    disk_walk_layers(w, m, keep_entry, keepdir);
}
