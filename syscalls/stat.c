/* stat results made the machine's. What the kernel fills in is partly the
 * host's and would differ on another host or in the next run:
 * - device and inode numbers (a fresh overlay gets a fresh anonymous
 *   device, a new file whatever inode the host's allocator gives): shown
 *   as the machine's own, handed out in order of first sight (idmap.h);
 * - the inode change time cannot be set (the kernel stamps the host's
 *   clock on every change, dsim's own stamps included): a file changed in
 *   the run shows its mtime, dsim's time (ftimes.c), as its ctime;
 * - a file untouched in the run shows its mtime as its atime too: the
 *   host's reads move its atime between runs (the machine's own are
 *   noatime);
 * - statx's birth time is the host's clock: reported as unavailable, as
 *   filesystems without one do;
 * - pipes, sockets and /proc entries carry the host's time of their making
 *   (and of a pipe's last write), /sys and /dev entries the host's time of
 *   its boot or of a device's use: they show the machine's boot time, as
 *   do dsim's fixed files (machine.c stamps them);
 * - a file changed by a path dsim does not follow (writes through a shared
 *   mapping) carries the host's time in both mtime and ctime (dsim's own
 *   stamps leave ctime apart): it shows, and is stamped with, the
 *   machine's time of the stat that first sees it;
 * - statfs's sizes and free space are the host disk's, which every write
 *   on the host moves: a disk of fixed size (tmpfs: half the machine's
 *   memory), half free, and no fsid;
 * - a /proc fd link to a pipe or socket names its host inode number
 *   (readlink): the machine's is shown, as its fstat gives;
 * - namespaces (/proc/PID/ns links and their stat) are numbered by the
 *   host's allocator: a machine's show a fresh boot's fixed numbers. */
#include "disk/confined.h"
#include "syscalls/sys.h"
#include "disk/durable.h"
#include "world/tracer.h"
#include <fcntl.h>
#include <stddef.h>
#include <sys/socket.h>
#include <sys/statfs.h>
#include <sys/stat.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#ifndef STATX_MNT_ID_UNIQUE
#define STATX_MNT_ID_UNIQUE 0x4000U
#endif

/* Did the kernel stamp this time after the run began? */
static bool in_run(const struct world *w, int64_t sec, int64_t nsec)
{
    return sec > w->host_start.tv_sec || (sec == w->host_start.tv_sec && nsec >= w->host_start.tv_nsec);
}

/* The devices of the machine's /proc, /sys, /dev and the device nodes in
 * it, looked up once per incarnation (its /proc and /dev are new; /sys and
 * the nodes are the host's, bound). */
void machine_kernel_devs(struct machine *m)
{
    if (m->kernel_devs_known) return;
    m->kernel_devs_known = true;        /* once: reads ask on every call */
    static const char *const paths[] = { "proc", "sys", "dev", "dev/null" };
    dev_t *devs[] = { &m->proc_dev, &m->sys_dev, &m->dev_dev, &m->node_dev };
    for (int i = 0; i < 4; i++) {
        struct stat st;
        int fd = machine_path_open((int)m->root_pid, paths[i], false, O_PATH);
        if (fd >= 0 && fstat(fd, &st) == 0) *devs[i] = st.st_dev;
        if (fd >= 0) close(fd);
    }
}

/* Files whose times the kernel keeps on the host's clock, untouched by
 * dsim, and made in the run: pipes, sockets, and everything in the
 * machine's /proc. */
static bool host_timed(struct machine *m, mode_t mode, dev_t dev)
{
    if (S_ISFIFO(mode) || S_ISSOCK(mode)) return true;
    machine_kernel_devs(m);
    return m->proc_dev && dev == m->proc_dev;
}

/* Files of the host's /sys and /dev, which every machine sees: their times
 * are the host's (its boot, its devices' use), older than the run. */
static bool host_kernel_file(struct machine *m, dev_t dev)
{
    machine_kernel_devs(m);
    return (m->sys_dev && dev == m->sys_dev) || (m->dev_dev && dev == m->dev_dev) ||
           (m->node_dev && dev == m->node_dev);
}

/* dsim's files bound into the machine (syscalls/open.c, machine.c, vfs.c)
 * live on the run directory's filesystem or the fixed files' (made before
 * the run, for the sweep), which stamp the host's clock as their access
 * and change times: their mtime is shown for both. */
static bool run_dir_file(const struct world *w, dev_t dev)
{
    return (w->host_devs[0] && dev == w->host_devs[0]) || (w->host_devs[3] && dev == w->host_devs[3]);
}

/* ---- namespaces ---- */

/* A machine's namespaces show the numbers a freshly booted Linux gives its
 * first ones: the same in every run and on every host, whatever the host's
 * allocator hands a run's new namespaces (and whichever namespaces dsim
 * itself runs in). */
static const struct { const char *kind; uint64_t ino; } ns_numbers[MACHINE_NS_KINDS] = {
    { "cgroup", 4026531835ULL }, { "ipc", 4026531839ULL }, { "mnt", 4026531841ULL }, { "net", 4026531840ULL },
    { "pid", 4026531836ULL }, { "time", 4026531834ULL }, { "user", 4026531837ULL }, { "uts", 4026531838ULL },
};

/* The device of the kernel's namespace file system (one for the host). */
static dev_t nsfs_dev(void)
{
    static dev_t dev;
    struct stat st;
    if (!dev && stat("/proc/self/ns/net", &st) == 0) dev = st.st_dev;
    return dev;
}

/* The machine's number for a namespace, by its host inode: those of its
 * command (the machine's own, and those it shares with dsim) get the fixed
 * ones, any other the machine's next number. */
static uint64_t ns_ino(struct machine *m, uint64_t host_ino)
{
    if (!m->ns_known) {
        for (int i = 0; i < MACHINE_NS_KINDS; i++) {
            char path[64];
            struct stat st;
            /* The command's: it has a user namespace of its own, below
             * init's (machine.c); the rest it shares with init. */
            snprintf(path, sizeof path, "/proc/%d/ns/%s", (int)(m->main ? m->main->pid : m->init_pid),
                     ns_numbers[i].kind);
            m->ns_host[i] = stat(path, &st) == 0 ? st.st_ino : 0;
        }
        m->ns_known = true;
    }
    for (int i = 0; i < MACHINE_NS_KINDS; i++)
        if (m->ns_host[i] && m->ns_host[i] == host_ino) return ns_numbers[i].ino;
    return idmap_ino(&m->ids, nsfs_dev(), host_ino);
}

static bool ns_kind(const char *kind)
{
    for (int i = 0; i < MACHINE_NS_KINDS; i++)
        if (!strcmp(kind, ns_numbers[i].kind)) return true;
    return false;
}

/* A regular file or directory the kernel stamped on the host's clock
 * after the run began, both times at once: changed behind dsim's back (a
 * write through a shared mapping; an entry made in /dev/shm, which is no
 * layer of the disk). */
static bool unfollowed(const struct world *w, mode_t mode, int64_t ms, int64_t mns, int64_t cs, int64_t cns)
{
    return (S_ISREG(mode) || S_ISDIR(mode)) && in_run(w, ms, mns) && ms == cs && mns == cns;
}

/* Stamps the file the stat call looked at with the machine's time now
 * (ftimes.c, at its next step), so later stats agree with this one. */
static struct timespec restamp(struct world *w, struct thread *t)
{
    long nr = SYSNR(t);
    int dirfd = nr == SYS_stat || nr == SYS_lstat ? AT_FDCWD : (int)ARG0(t);
    uint64_t path = nr == SYS_stat || nr == SYS_lstat ? ARG0(t) : nr == SYS_fstat ? 0 : ARG1(t);
    char first = 0, mpath[4096];
    if (path && mem_read(t->tid, path, &first, 1) != 0) first = 1;
    if (!path || !first) {                  /* fstat, or AT_EMPTY_PATH */
        struct stat st;
        int copy = fd_probe(w, t, dirfd, &st);
        if (copy >= 0) {
            disk_file_changed(t->proc->m, &st);     /* a write dsim did not see: the next fsync copies it all */
            ftimes_note_fd(w, t, copy, &st);
        }
    } else if (disk_entry_mpath(t, dirfd, path, mpath, sizeof mpath)) {
        ftimes_note_path(w, t->proc->m, mpath);
        disk_path_changed(t, mpath);
    }
    uint64_t now = machine_realtime(w, t->proc->m);
    return (struct timespec){ (time_t)(now / 1000000000), (long)(now % 1000000000) };
}

/* ---- reads of a host file's metadata, noted when tracing (outside.c) ---- */

static struct stat host_seen;       /* what the kernel gave the stat now at its exit */

static void stat_noted(struct world *w, struct thread *t, long result)
{
    long nr = SYSNR(t);
    int dirfd = nr == SYS_stat || nr == SYS_lstat ? AT_FDCWD : (int)ARG0(t);
    uint64_t path = nr == SYS_stat || nr == SYS_lstat ? ARG0(t) : nr == SYS_fstat ? 0 : ARG1(t);
    char first = 0, mpath[4096], link[64];
    if (result != 0 || (path && mem_read(t->tid, path, &first, 1) != 0)) return;
    if (path && first) {
        if (!disk_entry_mpath(t, dirfd, path, mpath, sizeof mpath)) return;
    } else {                                /* fstat, or AT_EMPTY_PATH */
        snprintf(link, sizeof link, "/proc/%d/fd/%d", t->tid, dirfd);
        ssize_t n = readlink(link, mpath, sizeof mpath - 1);
        if (n <= 0) return;
        mpath[n] = 0;
    }
    outside_stat_note(w, t, mpath, &host_seen);
}

/* A stat of a file the run has not changed (its ctime is before the run's
 * start), on the machine's disk (not dsim's fixed files, not /proc): the
 * host's file, whose metadata a later run may see otherwise. */
static void note_if_host(struct world *w, struct thread *t, const struct stat *st)
{
    if (!w->trace_results || !(S_ISREG(st->st_mode) || S_ISDIR(st->st_mode)) || run_dir_file(w, st->st_dev) ||
        in_run(w, st->st_ctim.tv_sec, st->st_ctim.tv_nsec) || host_timed(t->proc->m, st->st_mode, st->st_dev))
        return;
    host_seen = *st;
    t->exit_note = stat_noted;
}

static void statx_done(struct world *w, struct thread *t, uint64_t at)
{
    struct statx sx;
    if (mem_read(t->tid, at, &sx, sizeof sx) != 0) return;
    if (w->trace_results) {
        struct stat st = { .st_dev = makedev(sx.stx_dev_major, sx.stx_dev_minor), .st_ino = sx.stx_ino,
                           .st_mode = sx.stx_mode, .st_size = (off_t)sx.stx_size,
                           .st_mtim = { sx.stx_mtime.tv_sec, sx.stx_mtime.tv_nsec },
                           .st_ctim = { sx.stx_ctime.tv_sec, sx.stx_ctime.tv_nsec } };
        note_if_host(w, t, &st);
    }
    struct idmap *ids = &t->proc->m->ids;
    uint64_t dev = makedev(sx.stx_dev_major, sx.stx_dev_minor), key = machine_dev_key(t->proc->m, dev);
    uint64_t vdev = idmap_dev(ids, key);
    if (sx.stx_mask & STATX_INO) sx.stx_ino = dev == nsfs_dev() ? ns_ino(t->proc->m, sx.stx_ino) : idmap_ino(ids, key, sx.stx_ino);
    sx.stx_dev_major = major(vdev);
    sx.stx_dev_minor = minor(vdev);
    if ((in_run(w, sx.stx_mtime.tv_sec, sx.stx_mtime.tv_nsec) && host_timed(t->proc->m, sx.stx_mode, dev)) ||
        host_kernel_file(t->proc->m, dev)) {
        sx.stx_atime = sx.stx_mtime = sx.stx_ctime = (struct statx_timestamp){ .tv_sec = world_boot_s(w) };
    } else if (unfollowed(w, sx.stx_mode, sx.stx_mtime.tv_sec, sx.stx_mtime.tv_nsec, sx.stx_ctime.tv_sec,
                          sx.stx_ctime.tv_nsec)) {
        struct timespec now = restamp(w, t);
        sx.stx_atime = sx.stx_mtime = sx.stx_ctime = (struct statx_timestamp){ .tv_sec = now.tv_sec,
                                                                               .tv_nsec = (uint32_t)now.tv_nsec };
    }
    else if ((sx.stx_mask & STATX_CTIME) && in_run(w, sx.stx_ctime.tv_sec, sx.stx_ctime.tv_nsec)) sx.stx_ctime = sx.stx_mtime;
    else if (sx.stx_mask & STATX_ATIME) sx.stx_atime = sx.stx_mtime;
    if (run_dir_file(w, dev)) sx.stx_atime = sx.stx_ctime = sx.stx_mtime;
    sx.stx_mask &= ~(unsigned)STATX_BTIME;
    /* The mount id, the machine's (as its mountinfo numbers it); a 64-bit
     * unique one (Linux 6.8, which 6.1 did not have) cannot be told. */
    if (sx.stx_mask & STATX_MNT_ID_UNIQUE) {
        sx.stx_mask &= ~(unsigned)(STATX_MNT_ID_UNIQUE | STATX_MNT_ID);
        sx.stx_mnt_id = 0;
    } else if (sx.stx_mask & STATX_MNT_ID) {
        sx.stx_mnt_id = (uint64_t)machine_mount_id(t->proc->m, (int)sx.stx_mnt_id);
    }
    sx.stx_btime = (struct statx_timestamp){ 0 };
    mem_write(t->tid, at, &sx, sizeof sx);
}

static void stat_done(struct world *w, struct thread *t, long result)
{
    if (result != 0) return;
    long nr = SYSNR(t);
    if (nr == SYS_statx) {
        statx_done(w, t, ARG4(t));
        return;
    }
    uint64_t at = nr == SYS_newfstatat ? ARG2(t) : ARG1(t);
    struct stat st;
    if (mem_read(t->tid, at, &st, sizeof st) != 0) return;
    note_if_host(w, t, &st);
    struct idmap *ids = &t->proc->m->ids;
    dev_t dev = st.st_dev;
    bool host = (in_run(w, st.st_mtim.tv_sec, st.st_mtim.tv_nsec) && host_timed(t->proc->m, st.st_mode, dev)) ||
                host_kernel_file(t->proc->m, dev);
    uint64_t key = machine_dev_key(t->proc->m, dev);
    st.st_ino = dev == nsfs_dev() ? ns_ino(t->proc->m, st.st_ino) : idmap_ino(ids, key, st.st_ino);
    st.st_dev = idmap_dev(ids, key);
    if (host) st.st_atim = st.st_mtim = st.st_ctim = (struct timespec){ .tv_sec = (time_t)world_boot_s(w) };
    else if (unfollowed(w, st.st_mode, st.st_mtim.tv_sec, st.st_mtim.tv_nsec, st.st_ctim.tv_sec, st.st_ctim.tv_nsec))
        st.st_atim = st.st_mtim = st.st_ctim = restamp(w, t);
    else if (in_run(w, st.st_ctim.tv_sec, st.st_ctim.tv_nsec)) st.st_ctim = st.st_mtim;
    else st.st_atim = st.st_mtim;
    if (run_dir_file(w, dev)) st.st_atim = st.st_ctim = st.st_mtim;
    mem_write(t->tid, at, &st, sizeof st);
}

/* stat, fstat, lstat, newfstatat, statx. */
enum sys_action sys_stat(struct world *w, struct thread *t)
{
    (void)w;
    t->on_exit = stat_done;
    return SYS_PASS_EXIT;
}

/* The disk every machine reports: 100 GiB in 4 KiB blocks, half free. */
#define DISK_BLOCKS (100ull << 18)
#define DISK_FILES (6553600ull)

#define TMPFS_MAGIC 0x01021994
#define OVERLAYFS_MAGIC 0x794c7630

static void statfs_done(struct world *w, struct thread *t, long result)
{
    if (result != 0) return;
    struct statfs sf;
    if (mem_read(t->tid, ARG1(t), &sf, sizeof sf) != 0) return;
    if (sf.f_type == OVERLAYFS_MAGIC) {
        /* The machine's disk: its own tmpfs of its `disk` size (durable.h),
         * which only it writes, so the counts are the seed's. */
    } else if (sf.f_blocks) {  /* a filesystem with a size (not /proc, /sys) */
        uint64_t bsize = sf.f_bsize ? (uint64_t)sf.f_bsize : 4096;
        /* tmpfs (/dev/shm): half the machine's memory, as by default. */
        uint64_t blocks = sf.f_type == TMPFS_MAGIC ? w->conf->memory_bytes / 2 / bsize : DISK_BLOCKS * 4096 / bsize;
        sf.f_blocks = blocks;
        sf.f_bfree = sf.f_bavail = blocks / 2;
    }
    if (sf.f_files && sf.f_type != OVERLAYFS_MAGIC) {
        sf.f_files = DISK_FILES;
        sf.f_ffree = DISK_FILES / 2;
    }
    memset(&sf.f_fsid, 0, sizeof sf.f_fsid);
    mem_write(t->tid, ARG1(t), &sf, sizeof sf);
}

/* statfs, fstatfs. */
enum sys_action sys_statfs(struct world *w, struct thread *t)
{
    (void)w;
    t->on_exit = statfs_done;
    return SYS_PASS_EXIT;
}

/* ---- readlink of /proc/PID/fd/N ("pipe:[INODE]", "socket:[INODE]") and
 * /proc/PID/ns/KIND ("net:[INODE]") ---- */

/* The devices of the kernel's pipe and socket file systems (the same for
 * every process on the host): what an fstat of a pipe or socket gives. */
static dev_t kernel_fs_dev(bool sockets)
{
    static dev_t dev[2];
    static bool known[2];
    if (!known[sockets]) {
        struct stat st;
        int fds[2];
        if (sockets ? socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) == 0 : pipe2(fds, O_CLOEXEC) == 0) {
            if (fstat(fds[0], &st) == 0) dev[sockets] = st.st_dev;
            close(fds[0]);
            close(fds[1]);
        }
        known[sockets] = true;
    }
    return dev[sockets];
}

/* Links to pipes and sockets are at most this long ("socket:[" and 20
 * digits and "]"): a smaller buffer gets the kernel's text in scratch space
 * on the tracee's stack first, so a truncated link shows the machine's
 * number too. */
#define LINK_MAX_TEXT 64

static void readlink_done(struct world *w, struct thread *t, long result)
{
    (void)w;
    bool at = SYSNR(t) == SYS_readlinkat;
    unsigned long long *bufreg = at ? &t->regs.rdx : &t->regs.rsi, *sizereg = at ? &t->regs.r10 : &t->regs.rdx;
    bool redirected = t->call.readlink.redirected;
    uint64_t buf = redirected ? t->call.readlink.buf : *bufreg, size = redirected ? t->call.readlink.size : *sizereg;
    char link[LINK_MAX_TEXT + 1];
    size_t len = result > 0 && (size_t)result <= LINK_MAX_TEXT ? (size_t)result : 0;
    if (len && mem_read(t->tid, *bufreg, link, len) != 0) len = 0;
    link[len] = 0;
    unsigned long long ino;
    char kind[8], close_bracket;
    bool pipe_or_socket = false;
    if (len && sscanf(link, "%7[a-z]:[%llu%c", kind, &ino, &close_bracket) == 3 && close_bracket == ']' &&
        ((pipe_or_socket = !strcmp(kind, "socket") || !strcmp(kind, "pipe")) || ns_kind(kind))) {
        /* The machine's number for that inode, as its fstat gives (stat_done). */
        struct machine *m = t->proc->m;
        uint64_t mine = pipe_or_socket ? idmap_ino(&m->ids, kernel_fs_dev(!strcmp(kind, "socket")), ino)
                                       : ns_ino(m, ino);
        int n = snprintf(link, sizeof link, "%s:[%llu]", kind, (unsigned long long)mine);
        len = n > 0 ? (size_t)n : 0;
    } else if (!redirected) {
        return;                             /* not a link to rewrite, and in place */
    }
    if (redirected) {                       /* back to the caller's registers and buffer */
        *bufreg = buf;
        *sizereg = size;
        t->regs_dirty = true;
        if (result < 0) return;
    }
    size_t out = len < size ? len : (size_t)size;      /* readlink truncates silently */
    /* The kernel's longer text must not show past the end of ours. */
    char padded[LINK_MAX_TEXT + 1] = { 0 };
    memcpy(padded, link, out);
    size_t write = redirected || (size_t)result < out ? out : (size_t)result;
    if (mem_write(t->tid, buf, padded, write) == 0) {
        t->regs.rax = (unsigned long long)out;
        t->regs_dirty = true;
    }
}

/* readlink, readlinkat: a /proc fd link (also through /dev/fd, or relative
 * to a /proc directory) names a pipe or socket by the host's inode number;
 * the machine's is shown instead. */
enum sys_action sys_readlink(struct world *w, struct thread *t)
{
    (void)w;
    bool at = SYSNR(t) == SYS_readlinkat;
    char path[64];
    if (mem_read_str(t->tid, at ? ARG1(t) : ARG0(t), path, sizeof path) < 0 || (!strstr(path, "fd/") && !strstr(path, "ns/")))
        return SYS_PASS;
    unsigned long long *bufreg = at ? &t->regs.rdx : &t->regs.rsi, *sizereg = at ? &t->regs.r10 : &t->regs.rdx;
    t->call.readlink.redirected = false;
    if ((long long)*sizereg <= 0) return SYS_PASS;          /* EINVAL, from the kernel */
    if (*sizereg < LINK_MAX_TEXT) {
        uint64_t scratch = (t->regs.rsp - 128 - 2 * LINK_MAX_TEXT) & ~15ULL;     /* below the red zone */
        char probe;
        if (mem_read(t->tid, scratch, &probe, 1) == 0) {
            t->call.readlink.redirected = true;
            t->call.readlink.buf = *bufreg;
            t->call.readlink.size = *sizereg;
            *bufreg = scratch;
            *sizereg = LINK_MAX_TEXT;
            t->regs_dirty = true;
        }
    }
    t->on_exit = readlink_done;
    return SYS_PASS_EXIT;
}
