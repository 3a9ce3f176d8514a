/* Run directories, locked while they exist (rundir.h). */
#include "supervisor/rundir.h"
#include "world/world.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#define RUN_PREFIX "dsim-run."
#define LOCK_NAME "lock"
#define LOCK_TMP ".lock.new"

/* ---- removal, by fd: never through a symlink, never onto another file
 * system ---- */

static void remove_inside(int dfd, dev_t dev, int depth)
{
    DIR *d = fdopendir(dup(dfd));
    if (!d) return;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        struct stat st;
        if (fstatat(dfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
        if (S_ISDIR(st.st_mode)) {
            if (st.st_dev != dev || depth > 256) continue;
            int sub = openat(dfd, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            if (sub < 0) continue;
            remove_inside(sub, dev, depth + 1);
            close(sub);
            unlinkat(dfd, e->d_name, AT_REMOVEDIR);
        } else {
            unlinkat(dfd, e->d_name, 0);
        }
    }
    closedir(d);
}

/* Removes the directory `name` of runsfd whose fd is dfd (and only it: if
 * the name now means another directory, that one stays). */
static void remove_dir(int runsfd, const char *name, int dfd)
{
    struct stat mine, now;
    if (fstat(dfd, &mine) != 0) return;
    remove_inside(dfd, mine.st_dev, 0);
    if (fstatat(runsfd, name, &now, AT_SYMLINK_NOFOLLOW) == 0 && now.st_dev == mine.st_dev &&
        now.st_ino == mine.st_ino)
        unlinkat(runsfd, name, AT_REMOVEDIR);
}

static bool run_dir_name(const char *name)
{
    size_t n = strlen(RUN_PREFIX);
    if (strncmp(name, RUN_PREFIX, n) || strlen(name) != n + 6) return false;
    for (const char *c = name + n; *c; c++)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9'))) return false;
    return true;
}

/* One entry of the runs directory: removed if it is a run directory of
 * this user whose lock no process holds. */
static bool remove_if_stale(int runsfd, const char *name)
{
    struct stat st;
    if (!run_dir_name(name) || fstatat(runsfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISDIR(st.st_mode) ||
        st.st_uid != geteuid())
        return false;
    int dfd = openat(runsfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (dfd < 0) return false;
    bool removed = false;
    int lock = openat(dfd, LOCK_NAME, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    struct stat ls, now;
    /* Locked here, and still the directory's lock file (not one another
     * cleaner already unlinked). */
    if (lock >= 0 && flock(lock, LOCK_EX | LOCK_NB) == 0 && fstat(lock, &ls) == 0 && ls.st_nlink > 0 &&
        fstatat(dfd, LOCK_NAME, &now, AT_SYMLINK_NOFOLLOW) == 0 && now.st_ino == ls.st_ino) {
        remove_dir(runsfd, name, dfd);
        removed = true;
    }
    if (lock >= 0) close(lock);
    close(dfd);
    return removed;
}

int rundir_remove_stale(const char *runs)
{
    int runsfd = open(runs, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (runsfd < 0) return 0;
    DIR *d = fdopendir(dup(runsfd));
    int n = 0;
    struct dirent *e;
    while (d && (e = readdir(d)))
        if (remove_if_stale(runsfd, e->d_name)) n++;
    if (d) closedir(d);
    close(runsfd);
    return n;
}

/* ---- making one ---- */

/* The lock, made under another name and renamed: a cleaner sees `lock`
 * only once it is held. */
static int take_lock(const char *dir)
{
    char tmp[PATH_MAX], final[PATH_MAX];
    snprintf(tmp, sizeof tmp, "%s/" LOCK_TMP, dir);
    snprintf(final, sizeof final, "%s/" LOCK_NAME, dir);
    int fd = open(tmp, O_RDONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) return -1;
    if (flock(fd, LOCK_EX | LOCK_NB) != 0 || rename(tmp, final) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

int rundir_make(char *dir, size_t len, char *err, size_t errlen)
{
    static bool swept;
    const char *tmp = getenv("TMPDIR");
    if (!tmp || !*tmp) tmp = "/tmp";
    char base[PATH_MAX], runs[PATH_MAX];
    /* Absolute and without symlinks: machines see this path, hidden. */
    if (!realpath(tmp, base)) {
        snprintf(err, errlen, "TMPDIR %s: %s", tmp, strerror(errno));
        return -1;
    }
    if ((size_t)snprintf(runs, sizeof runs, "%s/%s", strcmp(base, "/") ? base : "", RUNS_DIR) >= sizeof runs) {
        snprintf(err, errlen, "TMPDIR %s: path too long", base);
        return -1;
    }
    /* The parent is shared, and something that cleans $TMPDIR (another
     * user, systemd-tmpfiles) may remove it while it is empty: it is made
     * again if it went between the mkdir and the mkdtemp. */
    for (int tries = 0;; tries++) {
        if (mkdir(runs, 01777) == 0) chmod(runs, 01777);    /* whatever the umask */
        struct stat st;
        if (lstat(runs, &st) != 0 || !S_ISDIR(st.st_mode)) {
            snprintf(err, errlen, "%s is not a directory", runs);
            return -1;
        }
        if (!swept) {
            swept = true;
            rundir_remove_stale(runs);
        }
        if ((size_t)snprintf(dir, len, "%s/" RUN_PREFIX "XXXXXX", runs) >= len) {
            snprintf(err, errlen, "TMPDIR %s: path too long", base);
            return -1;
        }
        if (mkdtemp(dir)) break;
        if (errno != ENOENT || tries == 2) {
            snprintf(err, errlen, "%s: %s", runs, strerror(errno));
            return -1;
        }
    }
    int lock = take_lock(dir);
    if (lock < 0) snprintf(err, errlen, "cannot lock %s: %s", dir, strerror(errno));
    return lock;
}

int rundir_mount(const char *dir, unsigned long long size, char *err, size_t errlen)
{
    struct stat st;
    char opts[96];
    if (stat(dir, &st) != 0) st.st_mode = 0700;
    snprintf(opts, sizeof opts, "size=%llu,mode=%o", size, (unsigned)(st.st_mode & 07777));
    if (mount("tmpfs", dir, "tmpfs", MS_NOSUID | MS_NODEV, opts) == 0) return 0;
    snprintf(err, errlen, "cannot mount a tmpfs on %s: %s", dir, strerror(errno));
    return -1;
}

/* ---- removal of this process's own, a few runs later: right after a run
 * the machines' overlay disks are still being torn down by the kernel, and
 * removing them then costs more than the whole run of a small program ---- */

#define KEEP_RUN_DIRS 4
static struct { char path[256]; int lock; } pending[KEEP_RUN_DIRS];
static int npending;

void rundir_cleanup(int keep)
{
    while (npending > keep) {
        char runs[256];
        snprintf(runs, sizeof runs, "%s", pending[0].path);
        char *slash = strrchr(runs, '/');
        umount2(pending[0].path, MNT_DETACH);  /* its tmpfs, and the disks in it */
        if (slash) {
            *slash = 0;
            int runsfd = open(runs, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
            int dfd = runsfd < 0 ? -1 : openat(runsfd, slash + 1, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            if (dfd >= 0) remove_dir(runsfd, slash + 1, dfd);
            if (dfd >= 0) close(dfd);
            if (runsfd >= 0) close(runsfd);
        }
        if (pending[0].lock >= 0) close(pending[0].lock);
        memmove(&pending[0], &pending[1], sizeof pending[0] * (size_t)(--npending));
    }
}

void rundir_done(const char *dir, int lock)
{
    rundir_cleanup(KEEP_RUN_DIRS - 1);
    snprintf(pending[npending].path, sizeof pending[npending].path, "%s", dir);
    pending[npending++].lock = lock;
}
