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
#include <sys/syscall.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <unistd.h>

#define RUN_PREFIX "dsim-run."
#define FIXED_PREFIX "dsim-fixed."    /* a process's fixed files (vfs.c) */
#define LOCK_NAME "lock"
#define LOCK_TMP ".lock.new"

/* ---- removal, by fd: never through a symlink, never onto another file
 * system ---- */

/* With getdents64 and a buffer on the stack, not readdir: it also runs
 * in the background remover thread, which must take no lock (malloc's) a
 * raw clone of the supervisor's could inherit held. */
static void remove_inside(int dfd, dev_t dev, int depth)
{
    char buf[2048];
    long n;
    while ((n = syscall(SYS_getdents64, dfd, buf, sizeof buf)) > 0) {
        for (long off = 0; off < n;) {
            struct dirent64 *e = (struct dirent64 *)(void *)(buf + off);
            off += e->d_reclen;
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
    }
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

static bool named(const char *name, const char *prefix)
{
    size_t n = strlen(prefix);
    if (strncmp(name, prefix, n) || strlen(name) != n + 6) return false;
    for (const char *c = name + n; *c; c++)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9'))) return false;
    return true;
}

static bool run_dir_name(const char *name) { return named(name, RUN_PREFIX) || named(name, FIXED_PREFIX); }

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

/* The directory of run directories, in runs (PATH_MAX); 0, or -1 with a
 * message in err. */
static int runs_dir(char *runs, char *err, size_t errlen)
{
    const char *tmp = getenv("TMPDIR");
    if (!tmp || !*tmp) tmp = "/tmp";
    char base[PATH_MAX];
    /* Absolute and without symlinks: machines see this path, hidden. */
    if (!realpath(tmp, base)) {
        snprintf(err, errlen, "TMPDIR %s: %s", tmp, strerror(errno));
        return -1;
    }
    if ((size_t)snprintf(runs, PATH_MAX, "%s/%s", strcmp(base, "/") ? base : "", RUNS_DIR) >= PATH_MAX) {
        snprintf(err, errlen, "TMPDIR %s: path too long", base);
        return -1;
    }
    return 0;
}

int rundir_remove_stale_now(void)
{
    char runs[PATH_MAX], err[64];
    return runs_dir(runs, err, sizeof err) == 0 ? rundir_remove_stale(runs) : 0;
}

static int make_named(char *dir, size_t len, const char *prefix, char *err, size_t errlen)
{
    static bool swept;
    char runs[PATH_MAX];
    if (runs_dir(runs, err, errlen) != 0) return -1;
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
        if ((size_t)snprintf(dir, len, "%s/%sXXXXXX", runs, prefix) >= len) {
            snprintf(err, errlen, "%s: path too long", runs);
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

int rundir_make(char *dir, size_t len, char *err, size_t errlen)
{
    return make_named(dir, len, RUN_PREFIX, err, errlen);
}

int rundir_make_fixed(char *dir, size_t len, char *err, size_t errlen)
{
    return make_named(dir, len, FIXED_PREFIX, err, errlen);
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

/* ---- removal of this process's own ----
 *
 * In the background (the default): a thread of dsim's detaches the run
 * directory's tmpfs (with the machines' disks on it) and removes what is
 * left on the host (the lock), while the next seed runs. Right after a run
 * the kernel is still tearing the machines' mounts down, and each unmount
 * waits for an RCU grace period: in the foreground that cost more than the
 * whole run of a small program. The thread dies with dsim; what a killed
 * dsim leaves (only the lock, the tmpfs being in its own mount namespace)
 * the next dsim removes (rundir_remove_stale).
 *
 * In the foreground (DSIM_RUNDIR_REMOVAL=foreground): a few runs later, by
 * the thread that ran them. */

/* Detaches the run directory at path and removes it (and only it: by fd,
 * never through a symlink), then drops its lock. No allocation. */
static void remove_run_dir(const char *path, int lock)
{
    char runs[512];
    size_t len = strlen(path);
    const char *slash = strrchr(path, '/');
    umount2(path, MNT_DETACH);  /* its tmpfs, and the disks in it */
    if (slash && len < sizeof runs) {
        memcpy(runs, path, (size_t)(slash - path));
        runs[slash - path] = 0;
        int runsfd = open(runs[0] ? runs : "/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        int dfd = runsfd < 0 ? -1 : openat(runsfd, slash + 1, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (dfd >= 0) remove_dir(runsfd, slash + 1, dfd);
        if (dfd >= 0) close(dfd);
        if (runsfd >= 0) close(runsfd);
    }
    if (lock >= 0) close(lock);
}

struct removal { char path[256]; int lock; };

#define KEEP_RUN_DIRS 4
static struct removal pending[KEEP_RUN_DIRS];
static int npending;

#define QUEUED_MAX 16
static struct {
    pthread_mutex_t mu;
    pthread_cond_t more, idle;
    struct removal q[QUEUED_MAX];
    int n;
    bool busy, started;
} bg = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, PTHREAD_COND_INITIALIZER, .n = 0 };

static void *remover(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&bg.mu);
    for (;;) {
        while (bg.n == 0) pthread_cond_wait(&bg.more, &bg.mu);
        struct removal r = bg.q[0];
        memmove(&bg.q[0], &bg.q[1], sizeof bg.q[0] * (size_t)(--bg.n));
        bg.busy = true;
        pthread_mutex_unlock(&bg.mu);
        remove_run_dir(r.path, r.lock);
        pthread_mutex_lock(&bg.mu);
        bg.busy = false;
        pthread_cond_broadcast(&bg.idle);
    }
    return NULL;
}

/* A child forked by a process whose remover runs has no remover, and the
 * directories queued are the parent's to remove: it forgets them. */
static void forget_in_child(void)
{
    pthread_mutex_init(&bg.mu, NULL);
    pthread_cond_init(&bg.more, NULL);
    pthread_cond_init(&bg.idle, NULL);
    for (int i = 0; i < bg.n; i++) close(bg.q[i].lock);
    bg.n = 0;
    bg.busy = bg.started = false;
}

static bool background(void)
{
    static int on = -1;
    if (on < 0) {
        const char *how = getenv("DSIM_RUNDIR_REMOVAL");
        on = !how || strcmp(how, "foreground") != 0;
    }
    return on;
}

/* Starts the remover: no signal of dsim's goes to it, and it may run on
 * any CPU (the thread that runs seeds is pinned to one). */
static bool start_remover(void)
{
    static bool registered;
    if (!registered && pthread_atfork(NULL, NULL, forget_in_child) == 0) registered = true;
    sigset_t all, was;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &was);
    pthread_t t;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    cpu_set_t any;
    CPU_ZERO(&any);
    if (sched_getaffinity(getpid(), sizeof any, &any) == 0) pthread_attr_setaffinity_np(&attr, sizeof any, &any);
    bool ok = pthread_create(&t, &attr, remover, NULL) == 0;
    pthread_attr_destroy(&attr);
    pthread_sigmask(SIG_SETMASK, &was, NULL);
    return ok;
}

void rundir_cleanup(int keep)
{
    while (npending > keep) {
        remove_run_dir(pending[0].path, pending[0].lock);
        memmove(&pending[0], &pending[1], sizeof pending[0] * (size_t)(--npending));
    }
    if (keep > 0 || !bg.started) return;
    /* Before dsim exits: every directory handed to the remover is gone. */
    pthread_mutex_lock(&bg.mu);
    while (bg.n > 0 || bg.busy) pthread_cond_wait(&bg.idle, &bg.mu);
    pthread_mutex_unlock(&bg.mu);
}

void rundir_done(const char *dir, int lock)
{
    bool fits = strlen(dir) < sizeof pending[0].path;
    if (fits && background()) {
        pthread_mutex_lock(&bg.mu);
        if (!bg.started) bg.started = start_remover();
        if (bg.started) {
            while (bg.n == QUEUED_MAX) pthread_cond_wait(&bg.idle, &bg.mu);
            snprintf(bg.q[bg.n].path, sizeof bg.q[bg.n].path, "%s", dir);
            bg.q[bg.n++].lock = lock;
            pthread_cond_signal(&bg.more);
            pthread_mutex_unlock(&bg.mu);
            return;
        }
        pthread_mutex_unlock(&bg.mu);
    }
    if (!fits) {
        remove_run_dir(dir, lock);
        return;
    }
    rundir_cleanup(KEEP_RUN_DIRS - 1);
    snprintf(pending[npending].path, sizeof pending[npending].path, "%s", dir);
    pending[npending++].lock = lock;
}

bool rundir_background(void) { return background(); }
