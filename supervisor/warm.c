/* Warm start: the run up to [simulation] warm_start is that of the
 * start-up seed (warm_seed), the same in every seed; from there on every
 * stream draws from the run's own seed, and [chaos] begins. Run cold, as
 * every command does today; a sweep may one day start its seeds from a
 * snapshot taken at the point instead (docs/design.md §6 "Warm start"). */
#include "supervisor/warm.h"
#include "supervisor/snapfds.h"
#include "net/sim/netsim.h"
#include "supervisor/faults.h"
#include "world/clockpage.h"
#include "syscalls/sys.h"
#include <ctype.h>
#include <inttypes.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/kcmp.h>
#include "supervisor/hostcaps.h"

uint64_t warm_startup_seed(const struct config *c, uint64_t seed)
{
    return config_warm(c) ? c->warm_seed : seed;
}

bool warm_due(const struct world *w)
{
    if (w->warmed) return false;
    return (w->conf->warm_start_ns && w->now >= w->conf->warm_start_ns) || w->warm_printed;
}

/* Whether the output file (written through fd, O_APPEND and write-only)
 * has, from `from` on with the len - 1 bytes before, text; *from moves to
 * its end. */
static bool printed(const struct world *w, const struct machine *m, int fd, const char *stream, uint64_t *from)
{
    const char *text = w->conf->warm_text;
    size_t len = strlen(text);
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || (uint64_t)st.st_size <= *from) return false;
    uint64_t end = (uint64_t)st.st_size, at = *from > len - 1 ? *from - (len - 1) : 0;
    *from = end;
    char path[sizeof w->run_dir + 300];
    snprintf(path, sizeof path, "%s/%s.%s", w->run_dir, m->name, stream);
    int rd = open(path, O_RDONLY | O_CLOEXEC);
    bool found = false;
    static char buf[65536];
    while (rd >= 0 && at < end && !found) {
        ssize_t n = pread(rd, buf, sizeof buf, (off_t)at);
        if (n <= 0) break;
        found = memmem(buf, (size_t)n, text, len) != NULL;
        if ((size_t)n < len || at + (uint64_t)n >= end) break;
        at += (uint64_t)n - (len - 1);
    }
    if (rd >= 0) close(rd);
    return found;
}

void warm_watch_output(struct world *w)
{
    const char *name = w->conf->warm_machine;
    if (!name || w->warmed || w->warm_printed) return;
    for (size_t i = 0; i < w->nmachines; i++) {
        struct machine *m = &w->machines[i];
        if (strcmp(m->name, name)) continue;
        w->warm_printed = printed(w, m, m->out_fd, "stdout", &w->warm_looked[0]) ||
                          printed(w, m, m->err_fd, "stderr", &w->warm_looked[1]);
    }
}

bool warm_due_at_call(const struct world *w, const struct thread *t)
{
    if (!w->conf->warm_network || w->warmed || SYSNR(t) != SYS_socket) return false;
    int family = (int)ARG0(t);
    return family == AF_INET || family == AF_INET6;
}

/* A file of the machine's network tables, /proc/PID/net/NAME (as
 * /proc/net/NAME and /proc/self/net/NAME open): what a program that
 * checks its interfaces reads at its start. Its text is made afresh from
 * the machine's network namespace, which the copy shares and which holds
 * nothing of the simulated network's at the point, so the copy that opens
 * it again and seeks to the offset reads on what the template would. */
static bool net_table(const char *path)
{
    const char *p = path + strlen("/proc/");
    if (!*p || !isdigit((unsigned char)*p)) return false;
    while (isdigit((unsigned char)*p)) p++;
    if (strncmp(p, "/net/", 5)) return false;
    p += 5;
    return *p && !strchr(p, '/');
}

/* One "lock:" line of an fdinfo, into *l: true if it is one a copy can take
 * again (advisory, read or write). */
static bool lock_line(const char *line, struct warm_lock *l)
{
    char kind[16], mode[16], type[16], start[32], end[32];
    if (sscanf(line, "lock: %*d: %15s %15s %15s %*d %*s %31s %31s", kind, mode, type, start, end) != 5 ||
        strcmp(mode, "ADVISORY") || (strcmp(type, "READ") && strcmp(type, "WRITE")))
        return false;
    l->kind = !strcmp(kind, "FLOCK") ? WARM_FLOCK : !strcmp(kind, "POSIX") ? WARM_POSIX : WARM_OFD;
    l->write = !strcmp(type, "WRITE");
    l->start = atoll(start);
    l->end = strcmp(end, "EOF") ? atoll(end) : -1;
    return l->kind != WARM_OFD || !strcmp(kind, "OFDLCK");
}

bool warm_reopenable(pid_t pid, int fd, char *path, size_t len, int *flags, long long *pos, struct warm_lock *locks,
                     int *nlocks)
{
    char name[64], line[256];
    struct stat st;
    snprintf(name, sizeof name, "/proc/%d/fd/%d", (int)pid, fd);
    ssize_t n = readlink(name, path, len - 1);
    if (n <= 0 || path[0] != '/' || stat(name, &st) != 0 || !(S_ISREG(st.st_mode) || S_ISDIR(st.st_mode))) return false;
    path[n] = 0;
    static const char *const kernel[] = { "/proc/", "/sys/", "/dev/" };
    for (int i = 0; i < 3; i++)
        if (!strncmp(path, kernel[i], strlen(kernel[i])) && !net_table(path)) return false;
    if (strstr(path, " (deleted)")) return false;
    snprintf(name, sizeof name, "/proc/%d/fdinfo/%d", (int)pid, fd);
    FILE *f = fopen(name, "re");
    bool got_pos = false, got_flags = false, locked = false;
    struct warm_lock mine[WARM_LOCKS];
    int n_locks = 0;
    while (f && fgets(line, sizeof line, f)) {
        if (!strncmp(line, "pos:", 4)) got_pos = sscanf(line + 4, "%lld", pos) == 1;
        else if (!strncmp(line, "flags:", 6)) got_flags = sscanf(line + 6, "%o", (unsigned *)flags) == 1;
        else if (!strncmp(line, "lock:", 5) && (n_locks == WARM_LOCKS || !lock_line(line, &mine[n_locks++]))) locked = true;
    }
    if (f) fclose(f);
    if (locks) memcpy(locks, mine, sizeof *mine * (size_t)n_locks);
    if (nlocks) *nlocks = n_locks;
    /* Written files too: the copy's writes go to its own disk's file (the
     * frozen layer's copy) through a description of its own. A network
     * table is only ever read. */
    /* A directory only unread (held for fsync or a lock): a position in
     * its listing is the file system's cookie, not an offset. */
    return got_pos && got_flags && !locked && !(*flags & O_PATH) && (!net_table(path) || (*flags & O_ACCMODE) == O_RDONLY) &&
           (S_ISREG(st.st_mode) || *pos == 0);
}

/* Whether the mapping [start, end) of pid, whose file the machine names
 * path, is of a regular file of the machine's disk. */
static bool disk_file_mapping(pid_t pid, uint64_t start, uint64_t end, const char *path)
{
    static const char *const kernel[] = { "/proc/", "/sys/", "/dev/" };
    if (path[0] != '/' || strstr(path, " (deleted)")) return false;
    for (int i = 0; i < 3; i++)
        if (!strncmp(path, kernel[i], strlen(kernel[i]))) return false;
    char name[96];
    struct stat st;
    snprintf(name, sizeof name, "/proc/%d/map_files/%" PRIx64 "-%" PRIx64, (int)pid, start, end);
    return stat(name, &st) == 0 && S_ISREG(st.st_mode);
}

const char *warm_shared_maps(pid_t pid, uint64_t clock_page, struct warm_map **maps, int *n, char *buf, size_t len)
{
    char path[64], line[4200];
    snprintf(path, sizeof path, "/proc/%d/smaps", (int)pid);
    FILE *f = fopen(path, "re");
    const char *why = NULL;
    struct warm_map cur = { 0 };
    bool shared = false, disk = false;
    if (n) *n = 0;
    while (f && !why && fgets(line, sizeof line, f)) {
        unsigned long long a, b, off;
        char perms[5];
        int at = 0;
        if (sscanf(line, "%llx-%llx %4s %llx %*x:%*x %*u %n", &a, &b, perms, &off, &at) == 4 && at > 0) {
            char *file = line + at;
            file[strcspn(file, "\n")] = 0;
            cur = (struct warm_map){ .start = a, .end = b, .offset = off };
            cur.prot = (perms[0] == 'r' ? PROT_READ : 0) | (perms[1] == 'w' ? PROT_WRITE : 0) |
                       (perms[2] == 'x' ? PROT_EXEC : 0);
            snprintf(cur.path, sizeof cur.path, "%s", file);
            shared = perms[3] == 's' && a != clock_page;
            disk = shared && disk_file_mapping(pid, a, b, file);
            continue;
        }
        if (strncmp(line, "VmFlags:", 8) || !shared) continue;
        cur.maywrite = strstr(line, " mw ") != NULL;
        if (disk && maps) {
            if (!(*maps = realloc(*maps, (size_t)(*n + 1) * sizeof **maps))) abort();
            (*maps)[(*n)++] = cur;
        } else if (!disk && cur.maywrite) {
            bool anonymous = !cur.path[0] || !strncmp(cur.path, "/dev/zero ", 10);
            snprintf(buf, len, "a writable shared mapping (%s)",
                     anonymous ? "anonymous" : !strncmp(cur.path, "/SYSV", 5) ? "System V shared memory" : cur.path);
            why = buf;
        }
    }
    if (f) fclose(f);
    return why;
}

/* What fd of pid is, in words that are the same in every run (no inode
 * numbers): a path, "a socket", "a pipe", or the kind of an anonymous
 * inode ("anon_inode:[timerfd]"). */
static void fd_kind(pid_t pid, int fd, char *what, size_t len)
{
    char path[64], link[4096];
    snprintf(path, sizeof path, "/proc/%d/fd/%d", (int)pid, fd);
    ssize_t n = readlink(path, link, sizeof link - 1);
    link[n > 0 ? n : 0] = 0;
    if (!strncmp(link, "socket:", 7)) snprintf(what, len, "a socket");
    else if (!strncmp(link, "pipe:", 5)) snprintf(what, len, "a pipe");
    else if (n > 0) snprintf(what, len, "%.150s", link);
    else snprintf(what, len, "gone");
}

/* The first thing of a process that a fork-made copy would share with its
 * template (docs/design.md "Warm start from a snapshot"): fds past stdio
 * (but files a copy opens again for itself, or makes anew), writable shared
 * mappings (but its clock page, which is dsim's, and its disk's files,
 * which a copy maps again), pending signals. (Its
 * do-not-copy and wipe-on-fork mappings a copy takes all the same:
 * snapshot.c fork_advice.) NULL if none. */
static const char *unforkable(const struct process *p, char *buf, size_t len)
{
    char path[64], line[512], file[4096];
    int flags;
    long long pos;
    pid_t pid = p->pid;
    uint64_t clock_page = p->clock ? p->clock->addr : 0;
    snprintf(path, sizeof path, "/proc/%d/fd", (int)pid);
    DIR *d = opendir(path);
    for (struct dirent *e; d && (e = readdir(d));)
        if (e->d_name[0] != '.' && atoi(e->d_name) > 2 &&
            !warm_reopenable(pid, atoi(e->d_name), file, sizeof file, &flags, &pos, NULL, NULL) &&
            !snap_fd_afresh_kind(pid, atoi(e->d_name))) {
            char what[200];
            fd_kind(pid, atoi(e->d_name), what, sizeof what);
            snprintf(buf, len, "fd %.20s open (%.150s)", e->d_name, what);
            closedir(d);
            return buf;
        }
    if (d) closedir(d);
    const char *why = warm_shared_maps(pid, clock_page, NULL, NULL, buf, len);
    snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
    FILE *f = fopen(path, "re");
    while (f && !why && fgets(line, sizeof line, f))
        if ((!strncmp(line, "SigPnd:", 7) || !strncmp(line, "ShdPnd:", 7)) && strtoull(line + 7, NULL, 16))
            why = "a pending signal";
    if (f) fclose(f);
    return why;
}

/* What stops a copy of p's threads (each made again in the copy from its
 * registers and state, snapshot.c): a first thread gone, a signal pending
 * for one, or one blocked on fds whose copies a seed cannot take again
 * from the copy (thread_held_fd, and poll's and select's lists: the copies
 * it holds are the template's).
 * NULL if nothing. */
static const char *threads_unforkable(const struct world *w, const struct process *p, char *buf, size_t len)
{
    if (!p->leader || p->leader_zombie) return "its first thread has exited";
    for (size_t i = 0; i < w->nthreads; i++) {
        const struct thread *t = w->threads[i];
        if (t->proc != p || t->state == TS_DEAD) continue;
        if (t->pending_sig) return "a pending signal";
        if (t->copy_fd >= 0 && thread_held_fd(t) < 0) {
            snprintf(buf, len, "thread %d waits on fds in a splice or a lock", (int)t->vtid);
            return buf;
        }
        char path[64], line[256];
        snprintf(path, sizeof path, "/proc/%d/task/%d/status", (int)p->pid, (int)t->tid);
        FILE *f = fopen(path, "re");
        bool pending = false;
        while (f && !pending && fgets(line, sizeof line, f))
            pending = !strncmp(line, "SigPnd:", 7) && strtoull(line + 7, NULL, 16);
        if (f) fclose(f);
        if (pending) return "a pending signal";
    }
    return NULL;
}

/* Whether fd of pid is a pipe's end, or a socket (snappipes.c makes the
 * pipes and socket pairs between a machine's processes in each copy; the
 * processes' own fds refuse other sockets). */
static bool is_pipe(pid_t pid, int fd, bool or_socket)
{
    char path[64], link[64] = "";
    snprintf(path, sizeof path, "/proc/%d/fd/%d", (int)pid, fd);
    return readlink(path, link, sizeof link - 1) > 6 &&
           (!strncmp(link, "pipe:[", 6) || (or_socket && !strncmp(link, "socket:[", 8)));
}

/* The fds past 2 of two processes that are one open file description
 * (inherited across a fork and kept by both), but pipes and sockets
 * (snappipes.c, or refused by each process's own fds): each copy would
 * have its own. NULL if none. */
static const char *shared_fds(const struct process *a, const struct process *b, char *buf, size_t len)
{
    char path[64];
    int fa[256], na = 0;
    snprintf(path, sizeof path, "/proc/%d/fd", (int)a->pid);
    DIR *d = opendir(path);
    for (struct dirent *e; d && na < 256 && (e = readdir(d));)
        if (e->d_name[0] != '.' && atoi(e->d_name) > 2 && !is_pipe(a->pid, atoi(e->d_name), true)) fa[na++] = atoi(e->d_name);
    if (d) closedir(d);
    if (!na) return NULL;
    /* kcmp needs CONFIG_CHECKPOINT_RESTORE; DSIM_WARM_FDS=old-host acts as
     * a host without it (refused, cold). */
    bool host = true;
    char err[200];
    bool old_host = warm_fds_resolve(&host, err, sizeof err) != 0 || !host;
    snprintf(path, sizeof path, "/proc/%d/fd", (int)b->pid);
    d = opendir(path);
    const char *why = NULL;
    for (struct dirent *e; d && !why && (e = readdir(d));) {
        int fb = atoi(e->d_name);
        if (e->d_name[0] == '.' || fb <= 2 || is_pipe(b->pid, fb, true)) continue;
        for (int i = 0; i < na && !why; i++) {
            long r = old_host ? -1 : syscall(SYS_kcmp, a->pid, b->pid, KCMP_FILE, fa[i], fb);
            if (r == 0) snprintf(buf, len, "fd %d of pid %d and fd %d of pid %d are one open file", fa[i],
                                 (int)a->vpid, fb, (int)b->vpid);
            else if (r < 0) snprintf(buf, len, "fds past 2 in pids %d and %d, and no kcmp here to tell them apart",
                                     (int)a->vpid, (int)b->vpid);
            if (r <= 0) why = buf;
        }
    }
    if (d) closedir(d);
    return why;
}

/* A socket or other shared object at fd 0-2 of one of several processes:
 * each copy would have its own, and its other end is another process's.
 * NULL if none. */
static const char *stdio_joined(const struct process *p, char *buf, size_t len)
{
    for (int fd = 0; fd <= 2; fd++) {
        char path[64], link[64] = "";
        struct stat st;
        snprintf(path, sizeof path, "/proc/%d/fd/%d", (int)p->pid, fd);
        if (stat(path, &st) != 0 || is_pipe(p->pid, fd, false)) continue;
        ssize_t k = readlink(path, link, sizeof link - 1);
        if (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode) || (k > 0 && !strncmp(link, "anon_inode:", 11))) {
            snprintf(buf, len, "fd %d of pid %d is a socket, fifo or such between its processes", fd, (int)p->vpid);
            return buf;
        }
    }
    return NULL;
}

/* What keeps one process of a machine from being copied (named by its
 * pid where the machine has more than one); NULL if nothing. */
static const char *proc_unforkable(const struct world *w, const struct process *p, bool named, char *buf, size_t len)
{
    char own[300];
    const char *no = threads_unforkable(w, p, own, sizeof own);
    if (!no) no = unforkable(p, own, sizeof own);
    if (!no || !named) return no == own ? (snprintf(buf, len, "%s", own), buf) : no;
    snprintf(buf, len, "pid %d: %.250s", (int)p->vpid, no);
    return buf;
}

/* Whether a snapshot could copy every machine here by forking (docs/
 * design.md "Warm start from a snapshot": init and its processes, each
 * made again at its pid with its threads); why not in why. */
bool warm_copyable(const struct world *w, char *why, size_t len)
{
    for (size_t i = 0; i < w->nmachines; i++) {
        const struct machine *m = &w->machines[i];
        /* Down after a crash, to start again after the point: its disk,
         * which that start changes, is not one a seed has a copy of (a
         * machine not yet started has an empty one, made again per seed). */
        if (!m->started && !m->exited && m->incarnation > 0 && m->start_at != UINT64_MAX) {
            snprintf(why, len, "machine %s: down at the point after a crash, to start again after it", m->name);
            return false;
        }
        /* Not yet (started afresh in each seed), or over (its command
         * exited, its processes gone: nothing of it runs again). */
        if (!m->started || m->exited) continue;
        const struct process *mine[64];
        int n = 0;
        char buf[300];
        const char *no = NULL;
        for (size_t k = 0; k < w->nprocs && !no; k++) {
            const struct process *p = w->procs[k];
            if (p->m != m || (p->exited && (p->reaped || !p->parent))) continue;   /* gone (init reaps orphans) */
            if (p->exited) snprintf(buf, sizeof buf, "pid %d has exited and is not yet waited for", (int)p->vpid), no = buf;
            else if (n == 64) snprintf(buf, sizeof buf, "more than 64 processes"), no = buf;
            else mine[n++] = p;
        }
        if (!no && !n) snprintf(buf, sizeof buf, "no process besides init"), no = buf;
        for (int k = 0; k < n && !no; k++) no = proc_unforkable(w, mine[k], n > 1, buf, sizeof buf);
        for (int k = 0; k < n && n > 1 && !no; k++) no = stdio_joined(mine[k], buf, sizeof buf);
        for (int a = 0; a < n && !no; a++)
            for (int b = a + 1; b < n && !no; b++) no = shared_fds(mine[a], mine[b], buf, sizeof buf);
        if (no) {
            snprintf(why, len, "machine %s: %s", m->name, no);
            return false;
        }
    }
    return true;
}

void warm_point(struct world *w)
{
    w->warmed = true;
    trace_event(w->trace, w->now, "-", 0, "warm start: seed %" PRIu64 " from here (start-up seed %" PRIu64 ")",
                w->seed, w->startup_seed);
    if (trace_has_notes(w->trace)) {      /* its /proc reads only for a trace file */
        char why[512], note[600];
        if (warm_copyable(w, why, sizeof why)) snprintf(note, sizeof note, "warm start: a snapshot could copy every machine here");
        else snprintf(note, sizeof note, "warm start: a snapshot could not copy %s", why);
        trace_note(w->trace, note);
    }
    prng_init(&w->sched, w->seed, "sched");
    for (size_t i = 0; i < w->nmachines; i++) {
        struct machine *m = &w->machines[i];
        char name[300];
        snprintf(name, sizeof name, "entropy/%s", m->name);
        prng_init(&m->entropy, w->seed, name);
        snprintf(name, sizeof name, "disk/%s", m->name);
        prng_init(&m->disk, w->seed, name);
    }
    faults_drop_drawn_before(w, w->now);
    if (netsim_reseed(w, w->seed) != 0) world_fail(w, OUT_INTERNAL, "cannot reseed the network at the warm start");
}
