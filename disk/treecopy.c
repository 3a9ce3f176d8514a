/* A copy of a tree of the run's disks in dsim's own process (treecopy.h).
 * Paths throughout, each entry taken with lstat and the l- calls: the
 * source is a layer a machine wrote (its symlinks are never followed), the
 * copy's directories are made here. */
#include "disk/treecopy.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/fs.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <unistd.h>

/* The files of the tree with more than one name, by source inode: the
 * first copy's path, which the later names link to. */
struct linked { dev_t dev; ino_t ino; char *path; };
struct links { struct linked *v; size_t n, cap; };

/* The extended attributes of from, set on to (neither followed). Each
 * that cannot be read or set is left out, as `cp -a` leaves it. */
static void copy_xattrs(const char *from, const char *to)
{
    char names[16384];
    static char value[65536];
    ssize_t len = llistxattr(from, names, sizeof names);
    for (ssize_t at = 0; at < len; at += (ssize_t)strlen(names + at) + 1) {
        ssize_t v = lgetxattr(from, names + at, value, sizeof value);
        if (v >= 0) lsetxattr(to, names + at, value, (size_t)v, 0);
    }
}

/* Bytes [at, end) of in to the same place of out: copy_file_range, else
 * read and write. */
static int copy_range(int in, int out, off_t at, off_t end)
{
    bool moved = false;
    while (at < end) {
        off_t a = at, b = at;
        ssize_t n = copy_file_range(in, &a, out, &b, (size_t)(end - at), 0);
        if (n > 0) { at += n; moved = true; continue; }
        if (n == 0) return 0;         /* the file shrank */
        if (errno == EINTR) continue;
        if (moved || (errno != EXDEV && errno != EINVAL && errno != ENOSYS && errno != EOPNOTSUPP)) return -1;
        break;
    }
    static char buf[1 << 16];
    while (at < end) {
        size_t want = (size_t)(end - at) < sizeof buf ? (size_t)(end - at) : sizeof buf;
        ssize_t n = pread(in, buf, want, at);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return -1;
        if (n == 0) return 0;
        if (pwrite(out, buf, (size_t)n, at) != n) return -1;
        at += n;
    }
    return 0;
}

/* The bytes of in (st) to the empty out: a reflink where the file system
 * has them; else its data, and its holes (a file with fewer blocks than
 * its size has some) left holes, as `cp`'s --sparse=auto leaves them. */
static int copy_data(int in, int out, const struct stat *st)
{
    int r;
    while ((r = ioctl(out, FICLONE, in)) != 0 && errno == EINTR) {}
    if (r == 0 || st->st_size == 0) return 0;
    if ((off_t)st->st_blocks * 512 >= st->st_size) return copy_range(in, out, 0, st->st_size);
    for (off_t at = 0; at < st->st_size;) {
        off_t data = lseek(in, at, SEEK_DATA);
        if (data < 0 && errno == ENXIO) break;          /* holes to the end */
        if (data < 0) return copy_range(in, out, at, st->st_size);
        off_t hole = lseek(in, data, SEEK_HOLE);
        if (hole < 0) hole = st->st_size;
        if (copy_range(in, out, data, hole) != 0) return -1;
        at = hole;
    }
    return ftruncate(out, st->st_size);
}

/* The owner, mode (after the owner: chown clears set-id bits), extended
 * attributes and times of from (st) given to to. */
static int copy_attrs(const char *from, const char *to, const struct stat *st)
{
    if (lchown(to, st->st_uid, st->st_gid) != 0) return -1;
    if (!S_ISLNK(st->st_mode) && chmod(to, st->st_mode & 07777) != 0) return -1;
    copy_xattrs(from, to);
    const struct timespec times[2] = { st->st_atim, st->st_mtim };
    return utimensat(AT_FDCWD, to, times, AT_SYMLINK_NOFOLLOW);
}

/* Opens from to read it without moving its access time (O_NOATIME: the
 * tree is copied again and again, each copy taking its times, and a
 * relatime mount moves the time of a file read whose access time is a
 * day old, as the simulated times are). Where the kernel refuses
 * O_NOATIME (a file dsim does not own, without CAP_FOWNER), *restore says
 * to put the time back after. */
static int open_noatime(const char *from, int flags, bool *restore)
{
    int fd = open(from, flags | O_NOATIME | O_NOFOLLOW | O_CLOEXEC);
    if (fd >= 0 || errno != EPERM) return fd;
    *restore = true;
    return open(from, flags | O_NOFOLLOW | O_CLOEXEC);
}

/* from's access time put back to st's. */
static void restore_atime(const char *from, const struct stat *st)
{
    const struct timespec times[2] = { st->st_atim, { .tv_nsec = UTIME_OMIT } };
    utimensat(AT_FDCWD, from, times, AT_SYMLINK_NOFOLLOW);
}

static int copy_file(const char *from, const char *to, const struct stat *st)
{
    bool restore = false;
    int in = open_noatime(from, O_RDONLY, &restore);
    if (in < 0) return -1;
    int out = open(to, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    int r = out < 0 ? -1 : copy_data(in, out, st);
    int e = errno;
    close(in);
    if (out >= 0) close(out);
    if (restore) restore_atime(from, st);
    errno = e;
    return r;
}

static int copy_entry(const char *from, const char *to, const struct stat *st, struct links *l, int depth);

static int copy_dir(const char *from, const char *to, const struct stat *st, struct links *l, int depth)
{
    if (depth > 512) return errno = ELOOP, -1;
    if (mkdir(to, 0700) != 0) return -1;
    bool restore = false;
    int fd = open_noatime(from, O_RDONLY | O_DIRECTORY, &restore);
    DIR *d = fd < 0 ? NULL : fdopendir(fd);
    if (!d) {
        if (fd >= 0) close(fd);
        return -1;
    }
    int r = 0;
    size_t lf = strlen(from), lt = strlen(to);
    for (struct dirent *e; r == 0 && (errno = 0, e = readdir(d));) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        size_t ln = strlen(e->d_name);
        char sf[PATH_MAX], st2[PATH_MAX];
        if (lf + ln + 2 > sizeof sf || lt + ln + 2 > sizeof st2) { errno = ENAMETOOLONG; r = -1; break; }
        memcpy(sf, from, lf), sf[lf] = '/', memcpy(sf + lf + 1, e->d_name, ln + 1);
        memcpy(st2, to, lt), st2[lt] = '/', memcpy(st2 + lt + 1, e->d_name, ln + 1);
        struct stat sub;
        r = lstat(sf, &sub) != 0 ? -1 : copy_entry(sf, st2, &sub, l, depth + 1);
    }
    if (r == 0 && errno) r = -1;
    int e = errno;
    closedir(d);
    if (restore) restore_atime(from, st);
    errno = e;
    /* The directory's times last: its entries' making changed them. */
    return r == 0 ? copy_attrs(from, to, st) : -1;
}

static int copy_entry(const char *from, const char *to, const struct stat *st, struct links *l, int depth)
{
    if (S_ISDIR(st->st_mode)) return copy_dir(from, to, st, l, depth);
    if (st->st_nlink > 1)
        for (size_t i = 0; i < l->n; i++)
            if (l->v[i].dev == st->st_dev && l->v[i].ino == st->st_ino) return link(l->v[i].path, to);
    int r;
    if (S_ISREG(st->st_mode)) {
        r = copy_file(from, to, st);
    } else if (S_ISLNK(st->st_mode)) {
        char target[PATH_MAX];
        ssize_t n = readlink(from, target, sizeof target - 1);
        if (n < 0) return -1;
        target[n] = 0;
        restore_atime(from, st);        /* readlink moves it: no flag keeps it */
        r = symlink(target, to);
    } else if (S_ISCHR(st->st_mode) || S_ISBLK(st->st_mode) || S_ISFIFO(st->st_mode) || S_ISSOCK(st->st_mode)) {
        r = mknod(to, (st->st_mode & S_IFMT) | 0600, st->st_rdev);
    } else {
        return errno = EINVAL, -1;
    }
    if (r != 0 || copy_attrs(from, to, st) != 0) return -1;
    if (st->st_nlink > 1) {
        if (l->n == l->cap && !(l->v = realloc(l->v, (l->cap = l->cap ? 2 * l->cap : 16) * sizeof *l->v))) abort();
        if (!(l->v[l->n].path = strdup(to))) abort();
        l->v[l->n].dev = st->st_dev, l->v[l->n++].ino = st->st_ino;
    }
    return 0;
}

int disk_copy_tree(const char *from, const char *to)
{
    struct stat st;
    struct links l = { NULL, 0, 0 };
    int r = lstat(from, &st) != 0 ? -1 : copy_entry(from, to, &st, &l, 0);
    int e = errno;
    for (size_t i = 0; i < l.n; i++) free(l.v[i].path);
    free(l.v);
    errno = e;
    return r;
}
