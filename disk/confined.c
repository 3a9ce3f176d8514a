#include "disk/confined.h"
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/xattr.h>
#include <unistd.h>

static char root_path[4096];
static size_t root_len;
static int root_fd = -1;

void cf_set_root(const char *root)
{
    if (root_fd >= 0) close(root_fd);
    snprintf(root_path, sizeof root_path, "%s", root);
    root_len = strlen(root_path);
    while (root_len > 1 && root_path[root_len - 1] == '/') root_path[--root_len] = 0;
    root_fd = open(root_path, O_PATH | O_DIRECTORY | O_CLOEXEC);
}

static int openat2_fd(int dirfd, const char *path, int flags, unsigned long long resolve)
{
    struct open_how how = { .flags = (unsigned long long)flags | O_CLOEXEC, .resolve = resolve };
    return (int)syscall(SYS_openat2, dirfd, path, &how, sizeof how);
}

/* The parent directory of path, resolved beneath the root without
 * following a symlink, as an O_PATH fd; *last is path's last component. */
static int parent_of(const char *path, const char **last)
{
    if (root_fd < 0 || strncmp(path, root_path, root_len) || path[root_len] != '/') {
        errno = EXDEV;
        return -1;
    }
    const char *rel = path + root_len + 1;
    const char *slash = strrchr(rel, '/');
    *last = slash ? slash + 1 : rel;
    if (!**last || !strcmp(*last, ".") || !strcmp(*last, "..")) {
        errno = EINVAL;
        return -1;
    }
    char dir[4096];
    size_t n = slash ? (size_t)(slash - rel) : 0;
    if (n >= sizeof dir) {
        errno = ENAMETOOLONG;
        return -1;
    }
    memcpy(dir, rel, n);
    dir[n] = 0;
    return openat2_fd(root_fd, n ? dir : ".", O_PATH | O_DIRECTORY,
                      RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS);
}

/* Runs one *at call on path's parent; its result, errno kept. */
#define AT_CALL(path, call)                                   \
    do {                                                      \
        const char *last;                                     \
        int dfd = parent_of(path, &last);                     \
        if (dfd < 0) return -1;                               \
        long r_ = (long)(call);                               \
        int e_ = errno;                                       \
        close(dfd);                                           \
        errno = e_;                                           \
        return r_;                                            \
    } while (0)

int cf_lstat(const char *path, struct stat *st) { AT_CALL(path, fstatat(dfd, last, st, AT_SYMLINK_NOFOLLOW)); }

int cf_statx(const char *path, unsigned mask, struct statx *sx)
{
    AT_CALL(path, statx(dfd, last, AT_SYMLINK_NOFOLLOW, mask, sx));
}

int cf_open(const char *path, int flags, mode_t mode)
{
    AT_CALL(path, openat(dfd, last, flags | O_NOFOLLOW | O_CLOEXEC, mode));
}

/* Without moving the directory's access time where the kernel allows
 * (O_NOATIME): dsim's own listing is no access of the machine's (a
 * relatime mount would set it to the host's time, the simulated one being
 * older than a day). */
DIR *cf_opendir(const char *path)
{
    int fd = cf_open(path, O_RDONLY | O_DIRECTORY | O_NOATIME, 0);
    if (fd < 0 && errno == EPERM) fd = cf_open(path, O_RDONLY | O_DIRECTORY, 0);
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    if (!d && fd >= 0) close(fd);
    return d;
}

int cf_unlink(const char *path) { AT_CALL(path, unlinkat(dfd, last, 0)); }
int cf_mkdir(const char *path, mode_t mode) { AT_CALL(path, mkdirat(dfd, last, mode)); }
int cf_mknod(const char *path, mode_t mode, dev_t dev) { AT_CALL(path, mknodat(dfd, last, mode, dev)); }
ssize_t cf_readlink(const char *path, char *buf, size_t len) { AT_CALL(path, readlinkat(dfd, last, buf, len)); }

int cf_utimens(const char *path, const struct timespec ts[2])
{
    AT_CALL(path, utimensat(dfd, last, ts, AT_SYMLINK_NOFOLLOW));
}

int cf_mkdirs_for(const char *path)
{
    char p[4096];
    if (snprintf(p, sizeof p, "%s", path) >= (int)sizeof p) return -1;
    for (char *s = p + root_len + 1; (s = strchr(s, '/')); s++) {
        *s = 0;
        if (cf_mkdir(p, 0755) != 0 && errno != EEXIST) return -1;
        *s = '/';
    }
    return 0;
}

int cf_link(const char *from, const char *to)
{
    const char *l1, *l2;
    int d1 = parent_of(from, &l1);
    if (d1 < 0) return -1;
    int d2 = parent_of(to, &l2), r = d2 < 0 ? -1 : linkat(d1, l1, d2, l2, 0);
    int e = errno;
    close(d1);
    if (d2 >= 0) close(d2);
    errno = e;
    return r;
}

int cf_rename(const char *from, const char *to, unsigned flags)
{
    const char *l1, *l2;
    int d1 = parent_of(from, &l1);
    if (d1 < 0) return -1;
    int d2 = parent_of(to, &l2), r = d2 < 0 ? -1 : renameat2(d1, l1, d2, l2, flags);
    int e = errno;
    close(d1);
    if (d2 >= 0) close(d2);
    errno = e;
    return r;
}

int cf_truncate(const char *path, off_t len)
{
    int fd = cf_open(path, O_WRONLY, 0);
    if (fd < 0) return -1;
    int r = ftruncate(fd, len);
    close(fd);
    return r;
}

int cf_set_opaque(const char *path)
{
    int fd = cf_open(path, O_RDONLY | O_DIRECTORY, 0);
    if (fd < 0) return -1;
    int r = fsetxattr(fd, "trusted.overlay.opaque", "y", 1, 0);
    close(fd);
    return r;
}

static void remove_at(int parent, const char *name)
{
    struct stat st;
    if (fstatat(parent, name, &st, AT_SYMLINK_NOFOLLOW) != 0) return;
    if (!S_ISDIR(st.st_mode)) {
        unlinkat(parent, name, 0);
        return;
    }
    int fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    if (!d && fd >= 0) close(fd);
    struct dirent *e;
    while (d && (e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) remove_at(dirfd(d), e->d_name);
    if (d) closedir(d);
    unlinkat(parent, name, AT_REMOVEDIR);
}

void cf_remove_tree(const char *path)
{
    const char *last;
    int dfd = parent_of(path, &last);
    if (dfd < 0) return;
    remove_at(dfd, last);
    close(dfd);
}

int machine_path_open(int pid, const char *mpath, bool nofollow, int flags)
{
    char root[64];
    snprintf(root, sizeof root, "/proc/%d/root", pid);
    int rfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (rfd < 0) return -1;
    int fd = openat2_fd(rfd, mpath, flags | (nofollow ? O_NOFOLLOW : 0), RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS);
    int e = errno;
    close(rfd);
    errno = e;
    return fd;
}
