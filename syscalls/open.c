/* open, openat and creat: the durability of a create (paths.c,
 * disk_open), the files whose contents change at every open, and init's
 * memory, which no open may write. */
#include "syscalls/sys.h"
#include "disk/confined.h"
#include <fcntl.h>
#include <linux/magic.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <unistd.h>

/* The machine's virtual uptime, for /proc/uptime. */
static void uptime_text(struct world *w, struct machine *m, FILE *f)
{
    uint64_t up = machine_monotonic(w, m), idle = up * w->conf->cpus;     /* ns */
    fprintf(f, "%llu.%02llu %llu.%02llu\n", (unsigned long long)(up / 1000000000),
            (unsigned long long)(up % 1000000000 / 10000000), (unsigned long long)(idle / 1000000000),
            (unsigned long long)(idle % 1000000000 / 10000000));
}

/* A random (version 4) UUID from the machine's entropy, for
 * /proc/sys/kernel/random/uuid, which gives a new one at every open. */
static void uuid_text(struct world *w, struct machine *m, FILE *f)
{
    (void)w;
    uint64_t hi = prng_next(&m->entropy), lo = prng_next(&m->entropy);
    hi = (hi & ~0xf000ull) | 0x4000ull;                     /* version 4 */
    lo = (lo & ~(3ull << 62)) | (2ull << 62);               /* variant 10 */
    fprintf(f, "%08llx-%04llx-%04llx-%04llx-%012llx\n", (unsigned long long)(hi >> 32),
            (unsigned long long)(hi >> 16 & 0xffff), (unsigned long long)(hi & 0xffff),
            (unsigned long long)(lo >> 48), (unsigned long long)(lo & 0xffffffffffffull));
}

/* /proc/timer_list of an idle machine: its clocks now, on every CPU, and
 * no timer (the host's would show its own timers, addresses and uptime). */
static void timer_list_text(struct world *w, struct machine *m, FILE *f)
{
    static const char *const get_time[4] = { "ktime_get", "ktime_get_real", "ktime_get_boottime", "ktime_get_clocktai" };
    uint64_t now = machine_monotonic(w, m);
    int64_t real = (int64_t)(machine_realtime(w, m) - now);     /* CLOCK_REALTIME's offset */
    int64_t offsets[4] = { 0, real, 0, real };
    fprintf(f, "Timer List Version: v0.10\nHRTIMER_MAX_CLOCK_BASES: 8\nnow at %llu nsecs\n\n",
            (unsigned long long)now);
    for (unsigned cpu = 0; cpu < w->conf->cpus; cpu++) {
        fprintf(f, "cpu: %u\n", cpu);
        for (int base = 0; base < 8; base++)
            fprintf(f, " clock %d:\n  .base:       0000000000000000\n  .index:      %d\n"
                    "  .resolution: 1 nsecs\n  .get_time:   %s\n  .offset:     %lld nsecs\nactive timers:\n",
                    base, base, get_time[base % 4], (long long)offsets[base % 4]);
        fprintf(f, "  .expires_next   : 9223372036854775807 nsecs\n  .hres_active    : 1\n"
                "  .nr_events      : 0\n  .nr_retries     : 0\n  .nr_hangs       : 0\n  .max_hang_time  : 0\n"
                "  .nohz_mode      : 2\n  .last_tick      : %llu nsecs\n  .tick_stopped   : 1\n"
                "  .idle_jiffies   : 0\n  .idle_calls     : 0\n  .idle_sleeps    : 0\n"
                "  .idle_entrytime : %llu nsecs\n  .idle_waketime  : 0 nsecs\n  .idle_exittime  : 0 nsecs\n"
                "  .idle_sleeptime : %llu nsecs\n  .iowait_sleeptime: 0 nsecs\n  .last_jiffies   : 0\n"
                "  .next_timer     : 9223372036854775807\n  .idle_expires   : 9223372036854775807 nsecs\n"
                "jiffies: %llu\n\n", (unsigned long long)now, (unsigned long long)now, (unsigned long long)now,
                (unsigned long long)(4294667296ULL + now / 4000000));   /* HZ=250, from INITIAL_JIFFIES */
    }
}

/* Files whose contents change at every open: a file of the machine's own is
 * bound over each (machine.c), rewritten here before the open runs. */
static const struct { const char *path, *file; void (*text)(struct world *, struct machine *, FILE *); } live_files[] = {
    { "/proc/uptime", "uptime", uptime_text },
    { "/proc/sys/kernel/random/uuid", "uuid", uuid_text },
    { "/proc/timer_list", "timer_list", timer_list_text },
};
#define NLIVE (sizeof live_files / sizeof *live_files)

/* The file a path names for thread t, as the kernel would find it: an
 * O_PATH fd, or -1. Resolved a component at a time from dsim, inside the
 * thread's root: an absolute symlink (the machine's own, or one it made)
 * starts again at that root, and ".." stops there. The machine's /proc is
 * of its pid namespace, in which dsim has no pid: its "self" and
 * "thread-self" are the thread's own, given here; its other symlinks that
 * name a process's directory or file (cwd, root, fd/N, exe, ...) are magic
 * links, which the kernel follows from dsim as from the thread (the
 * machine's pids are the same to both). */
static int resolve_as(struct thread *t, int dirfd, const char *path, bool follow_last)
{
    char rootp[64], rest[8192], text[4096];
    snprintf(rootp, sizeof rootp, "/proc/%d/root", t->tid);
    int root = open(rootp, O_PATH | O_DIRECTORY | O_CLOEXEC), cur;
    struct stat rst, st;
    if (root < 0) return -1;
    if (fstat(root, &rst) < 0) goto fail_root;
    if (path[0] == '/') {
        cur = fcntl(root, F_DUPFD_CLOEXEC, 0);
    } else {
        char base[64];
        if (dirfd == AT_FDCWD) snprintf(base, sizeof base, "/proc/%d/cwd", t->tid);
        else snprintf(base, sizeof base, "/proc/%d/fd/%d", t->tid, dirfd);
        cur = open(base, O_PATH | O_CLOEXEC);
    }
    if (cur < 0 || (size_t)snprintf(rest, sizeof rest, "%s", path) >= sizeof rest) goto fail;
    int links = 0;
    char *p = rest;
    for (;;) {
        while (*p == '/') p++;
        if (!*p) break;
        char *c = p;
        while (*p && *p != '/') p++;
        char sep = *p;
        *p = 0;
        char *after = sep ? p + 1 : p;
        bool last = !after[strspn(after, "/")];
        if (!strcmp(c, ".")) { p = after; continue; }
        int nfd;
        if (!strcmp(c, "..")) {
            if (fstat(cur, &st) == 0 && st.st_dev == rst.st_dev && st.st_ino == rst.st_ino) { p = after; continue; }
            nfd = openat(cur, "..", O_PATH | O_CLOEXEC);
        } else {
            nfd = openat(cur, c, O_PATH | O_NOFOLLOW | O_CLOEXEC);
        }
        if (nfd < 0) goto fail;
        if (fstat(nfd, &st) == 0 && S_ISLNK(st.st_mode) && (!last || follow_last || sep)) {
            struct statfs sf;
            struct stat cst;
            bool proc = fstatfs(cur, &sf) == 0 && sf.f_type == PROC_SUPER_MAGIC;
            bool proc_root = proc && fstat(cur, &cst) == 0 && cst.st_ino == 1;
            if (++links > 40) { close(nfd); goto fail; }
            if (proc && !proc_root) {               /* a magic link: the kernel follows it */
                close(nfd);
                nfd = openat(cur, c, O_PATH | O_CLOEXEC);
                if (nfd < 0) goto fail;
            } else {
                ssize_t n;
                if (proc_root && !strcmp(c, "self")) n = snprintf(text, sizeof text, "%d", (int)t->proc->vpid);
                else if (proc_root && !strcmp(c, "thread-self"))
                    n = snprintf(text, sizeof text, "%d/task/%d", (int)t->proc->vpid, (int)t->vtid);
                else n = readlinkat(nfd, "", text, sizeof text - 1);
                close(nfd);
                if (n < 0 || (size_t)n >= sizeof text) goto fail;
                text[n] = 0;
                char joined[sizeof rest];
                if ((size_t)snprintf(joined, sizeof joined, *after ? "%s/%s" : "%s%s", text, after) >= sizeof joined)
                    goto fail;
                memcpy(rest, joined, sizeof rest);
                p = rest;
                if (text[0] == '/') {
                    int r = fcntl(root, F_DUPFD_CLOEXEC, 0);
                    if (r < 0) goto fail;
                    close(cur);
                    cur = r;
                }
                continue;
            }
        }
        close(cur);
        cur = nfd;
        p = after;
    }
    close(root);
    return cur;
fail:
    if (cur >= 0) close(cur);
fail_root:
    close(root);
    return -1;
}

/* Whether path's last component, for thread t, is a symlink: 1 or 0, or
 * -1 if a quick look cannot tell. The quick look is one openat2 from the
 * thread's root (an absolute path, scoped to it) or its cwd or dirfd (a
 * relative one, kept beneath it) that follows no symlink on the way: a
 * path that needs one, or "..", or a /proc magic link, is left to
 * resolve_as, a component at a time. */
static int last_is_symlink(struct thread *t, int dirfd, const char *path)
{
    char base[64];
    if (path[0] == '/') snprintf(base, sizeof base, "/proc/%d/root", t->tid);
    else if (dirfd == AT_FDCWD) snprintf(base, sizeof base, "/proc/%d/cwd", t->tid);
    else snprintf(base, sizeof base, "/proc/%d/fd/%d", t->tid, dirfd);
    int b = open(base, O_PATH | O_CLOEXEC);
    if (b < 0) return -1;
    struct open_how how = { .flags = O_PATH | O_NOFOLLOW | O_CLOEXEC,
                            .resolve = RESOLVE_NO_SYMLINKS | (path[0] == '/' ? RESOLVE_IN_ROOT : RESOLVE_BENEATH) };
    int fd = (int)syscall(SYS_openat2, b, path, &how, sizeof how);
    int e = errno;
    close(b);
    if (fd < 0) return e == ENOENT || e == ENOTDIR ? 0 : -1;   /* no such file: the open makes or fails */
    struct stat st;
    int r = fstat(fd, &st) == 0 ? S_ISLNK(st.st_mode) : -1;
    close(fd);
    return r;
}

/* True if an open of path (at addr, relative to dirfd) with flags, for
 * writing, would open the machine's init's memory: /proc/1/mem or
 * /proc/1/task/1/mem of its /proc, however named. init is not traced: code
 * written there would run outside the simulation. A path reaches it only
 * through a last component named "mem", a number in an "fd" directory (a
 * reopen of an O_PATH fd), or a symlink (procfs has no hard links, and a
 * machine makes no mounts): any other path costs a look at its last
 * component, not followed (last_is_symlink), to see that it is no symlink. */
static bool opens_init_mem(struct thread *t, int dirfd, uint64_t addr, int flags)
{
    char path[4096];
    if (mem_read_str(t->tid, addr, path, sizeof path) < 1) return false;
    size_t n = strlen(path), d = n;
    while (d > 0 && path[d - 1] >= '0' && path[d - 1] <= '9') d--;
    bool fd_link = d < n && d >= 3 && !strncmp(path + d - 3, "fd/", 3) && (d == 3 || path[d - 4] == '/');
    bool named = fd_link || (n >= 3 && !strcmp(path + n - 3, "mem") && (n == 3 || path[n - 4] == '/'));
    if (!named) {
        if (flags & O_NOFOLLOW) return false;   /* a last symlink fails with ELOOP */
        int link = last_is_symlink(t, dirfd, path);
        if (link < 0) {
            int lfd = resolve_as(t, dirfd, path, false);
            struct stat lst;
            link = lfd >= 0 && fstat(lfd, &lst) == 0 && S_ISLNK(lst.st_mode);
            if (lfd >= 0) close(lfd);
        }
        if (!link) return false;
    }
    int fd = resolve_as(t, dirfd, path, !(flags & O_NOFOLLOW));
    struct stat st, init_st;
    bool hit = false;
    if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
        static const char *const init_mem[] = { "/proc/1/mem", "/proc/1/task/1/mem" };
        for (size_t i = 0; i < 2 && !hit; i++) {
            int ifd = machine_path_open((int)t->proc->m->root_pid, init_mem[i], true, O_PATH);
            hit = ifd >= 0 && fstat(ifd, &init_st) == 0 && init_st.st_dev == st.st_dev && init_st.st_ino == st.st_ino;
            if (ifd >= 0) close(ifd);
        }
    }
    if (fd >= 0) close(fd);
    return hit;
}

enum sys_action sys_open(struct world *w, struct thread *t)
{
    char path[40];
    bool at = SYSNR(t) == SYS_openat;
    uint64_t addr = at ? ARG1(t) : ARG0(t);
    int flags = (int)(at ? ARG2(t) : ARG1(t));
    size_t i = 0;
    if ((flags & O_ACCMODE) != O_RDONLY && !(flags & O_PATH) && opens_init_mem(t, at ? (int)ARG0(t) : AT_FDCWD, addr, flags))
        return emulate(t, -EACCES);
    if (mem_read_str(t->tid, addr, path, sizeof path) >= 0)
        while (i < NLIVE && strcmp(path, live_files[i].path)) i++;
    else i = NLIVE;
    if (i == NLIVE) {
        if (w->trace_results) t->exit_note = outside_open_noted;
        return disk_open(w, t, at ? (int)ARG0(t) : AT_FDCWD, addr, flags);
    }
    char file[512];
    struct machine *m = t->proc->m;
    snprintf(file, sizeof file, "%s/vfs/%s.%s", w->run_dir, live_files[i].file, m->name);
    FILE *f = fopen(file, "we");
    if (f) {
        live_files[i].text(w, m, f);
        fclose(f);
    }
    machine_file_times(w, AT_FDCWD, file);
    return SYS_PASS;
}

enum sys_action sys_creat(struct world *w, struct thread *t)
{
    if (opens_init_mem(t, AT_FDCWD, ARG0(t), O_WRONLY)) return emulate(t, -EACCES);
    return disk_open(w, t, AT_FDCWD, ARG0(t), O_CREAT);
}
