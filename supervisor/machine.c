#include "supervisor/machine.h"
#include "supervisor/vfs.h"
#include "supervisor/step.h"
#include "supervisor/hostcaps.h"
#include "net/sim/netsim.h"
#include "disk/durable.h"
#include "world/tracer.h"
#include "syscalls/sys.h"
#include <errno.h>
#include <fcntl.h>
#include <linux/seccomp.h>
#include <net/if.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/sysmacros.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <linux/magic.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <sched.h>
#include <unistd.h>

#ifndef MFD_EXEC
#define MFD_EXEC 0x0010U
#endif

/* Fds of pid 1 while it forks the command (init_fds). INIT_READY_FD is
 * the one the image closes when it is ready (init_image.S). */
enum { INIT_READY_FD = 3, INIT_WAIT_FD = 4, INIT_IMAGE_FD = 5 };

/* The environment every machine starts with; never the caller's. */
static const char *const default_env[] = {
    "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
    "HOME=/root", "LANG=C.UTF-8", "TERM=dumb",
};

/* The kernel's log is the host's: a machine reads none, and what it writes
 * there goes nowhere (not into the host's log). */
static const char *const null_files[] = { "/proc/kmsg" };

/* The kernel's own files in /proc that reach the host: masked with
 * /dev/null (the host's memory, keys, debugging, and sysrq-trigger, which a
 * write of "b" to would reboot the host), or made read-only (buses,
 * interrupts, file systems, sysctls), as container runtimes do. Missing
 * ones are skipped. */
static const char *const proc_masked[] = {
    "/proc/kcore", "/proc/keys", "/proc/key-users", "/proc/latency_stats", "/proc/sched_debug",
    "/proc/sysrq-trigger", "/proc/kallsyms", "/proc/kpagecount", "/proc/kpageflags", "/proc/kpagecgroup",
    "/proc/timer_stats", "/proc/config.gz",
};
static const char *const proc_readonly[] = {
    "/proc/sys", "/proc/bus", "/proc/fs", "/proc/irq", "/proc/acpi", "/proc/scsi", "/proc/driver",
    "/proc/sysvipc", "/proc/tty",
};

/* The device nodes a machine's private /dev holds, bound from the host's
 * (their reads of random bytes are the machine's: syscalls/random.c). */
static const char *const dev_nodes[] = { "null", "zero", "full", "random", "urandom", "tty" };

/* Makes dir with the mode, owner and times of the host directory from. */
static void mkdir_like(const char *dir, const char *from)
{
    struct stat ls;
    if (mkdir(dir, 0755) != 0 || stat(from, &ls) != 0) return;
    if (chown(dir, ls.st_uid, ls.st_gid) != 0) {}
    chmod(dir, ls.st_mode & 07777);
    struct timespec times[2] = { ls.st_mtim, ls.st_mtim };
    utimensat(AT_FDCWD, dir, times, 0);
}

/* An overlay of the host directory `lower` at root+lower whose writes go to
 * the machine's disk (layer n). Falls back to a bind mount, which does let
 * writes through, for a filesystem overlayfs refuses. */
static void overlay(const char *disk, const char *root, const char *lower, int n)
{
    char upper[600], work[600], target[1200], opts[2000];
    snprintf(upper, sizeof upper, "%s/upper%d", disk, n);
    snprintf(work, sizeof work, "%s/work%d", disk, n);
    snprintf(target, sizeof target, "%s%s", root, strcmp(lower, "/") ? lower : "");
    /* The merged directory shows its upper one's mode, owner and times:
     * the lower's, not the moment the run began (a /tmp mount keeps 1777). */
    mkdir_like(upper, lower);
    mkdir(work, 0755);
    /* Relative to the disk: /proc/self/mounts shows the options as given,
     * and the run directory's name differs in every run. */
    if (chdir(disk) == 0) snprintf(opts, sizeof opts, "lowerdir=%s,upperdir=upper%d,workdir=work%d", lower, n, n);
    else snprintf(opts, sizeof opts, "lowerdir=%s,upperdir=%s,workdir=%s", lower, upper, work);
    /* The upper layer is the machine's disk, a tmpfs (durable.h), not the
     * lower layer's file system: xino gives every file the overlay's
     * device and an inode number of its own, as one file system would (a
     * directory's entries would otherwise show two devices, and readdir's
     * d_ino another number than stat's). */
    size_t ol = strlen(opts);
    snprintf(opts + ol, sizeof opts - ol, ",xino=on");
    /* noatime: a read would stamp the host's clock (file times are dsim's). */
    if (mount("overlay", target, "overlay", MS_NOATIME, opts) != 0) mount(lower, target, NULL, MS_BIND, NULL);
}


/* The upper-layer directory of the host directory mpath, made before the
 * overlay is mounted: the components it lacks like their lower ones, the
 * last with the machine's boot time. From its layer's root on, the upper
 * path ends as mpath does. */
static void upper_dir(struct world *w, struct machine *m, const char *mpath)
{
    char upper[4096], lower[4096];
    struct stat ls;
    if (!disk_upper(w, m, mpath, upper, sizeof upper) || stat(mpath, &ls) != 0 || !S_ISDIR(ls.st_mode)) return;
    size_t ulen = strlen(upper), mlen = strlen(mpath), made[64];
    int nmade = 0;
    for (size_t i = 1; i <= ulen && nmade < 64; i++) {
        if (upper[i] != '/' && upper[i] != 0) continue;
        size_t after = ulen - i;            /* this prefix is mpath less its last `after` bytes */
        char was = upper[i];
        upper[i] = 0;
        if (after <= mlen && mkdir(upper, 0755) == 0) made[nmade++] = i;
        upper[i] = was;
    }
    /* Times last, deepest first: making a child moves its parent's. */
    for (int k = nmade; k-- > 0;) {
        size_t i = made[k], after = ulen - i;
        char was = upper[i];
        upper[i] = 0;
        snprintf(lower, sizeof lower, "%.*s", (int)(mlen - after), mpath);
        if (stat(lower[0] ? lower : "/", &ls) == 0) {
            if (chown(upper, ls.st_uid, ls.st_gid) != 0) {}
            chmod(upper, ls.st_mode & 07777);
            struct timespec times[2] = { ls.st_mtim, ls.st_mtim };
            utimensat(AT_FDCWD, upper, times, 0);
        }
        upper[i] = was;
    }
    machine_file_times(w, AT_FDCWD, upper);
}

/* The machine's disk: every host filesystem seen through an overlay whose
 * upper layers live in the run directory, so nothing the machine writes
 * reaches the host or another machine, and what it wrote survives its
 * crashes within the run. Then the machine is chrooted into it. */
static void disk_setup(struct world *w, struct machine *m, char *root, size_t rootlen)
{
    char disk[512];
    snprintf(disk, sizeof disk, "%s/disk/%s", w->run_dir, m->name);
    mkdir(disk, 0755);
    snprintf(root, rootlen, "%s/root", disk);
    mkdir(root, 0755);
    /* /tmp and /var/tmp are the machine's from its start, as on a fresh
     * machine: their times and link counts are no longer the host's, which
     * move whenever anything on the host makes a file there (what a
     * listing shows of them: syscalls/dirs.c). */
    if (m->incarnation == 0)
        for (int i = 0; i < MACHINE_TMP_DIRS; i++) upper_dir(w, m, machine_tmp_dirs[i]);
    for (size_t n = 0; n < w->nlayers; n++) overlay(disk, root, w->layers[n], (int)n);
    /* The run directories' parents look empty: no run's files, this one's
     * included (its name changes every run), nor another dsim's with
     * TMPDIR unset, /tmp or /var/tmp; and times that do not move. */
    char runs[3][600], hide[1200];
    snprintf(runs[0], sizeof runs[0], "%s", w->run_dir);
    char *slash = strrchr(runs[0], '/');
    if (slash) *slash = 0;
    snprintf(runs[1], sizeof runs[1], "/tmp/%s", RUNS_DIR);
    snprintf(runs[2], sizeof runs[2], "/var/tmp/%s", RUNS_DIR);
    for (int i = 0; i < 3; i++) {
        size_t rl = strlen(runs[i]), nl = strlen(RUNS_DIR);
        struct stat st;
        if (rl < nl || strcmp(runs[i] + rl - nl, RUNS_DIR) || (i && !strcmp(runs[i], runs[0])) ||
            stat(runs[i], &st) != 0 || !S_ISDIR(st.st_mode))
            continue;
        snprintf(hide, sizeof hide, "%s%s", root, runs[i]);
        if (mount("tmpfs", hide, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, "mode=1777,size=4k") == 0) {
            machine_file_times(w, AT_FDCWD, hide);
            mount(NULL, hide, NULL, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL);
        }
    }
}

/* A file of the machine's own, vfs/NAME.MACHINE holding text, bound over
 * target (if the host has one there). */
static void bind_own_file(struct world *w, struct machine *m, const char *root, const char *name,
                          const char *target, const char *text)
{
    char src[512], dst[1200];
    snprintf(src, sizeof src, "%s/vfs/%s.%s", w->run_dir, name, m->name);
    int fd = open(src, O_CREAT | O_WRONLY | O_TRUNC | O_CLOEXEC, 0444);
    if (fd >= 0) {
        if (write(fd, text, strlen(text)) < 0) {}
        close(fd);
    }
    snprintf(dst, sizeof dst, "%s%s", root, target);
    vfs_bind_fixed(w, src, dst, 0);
}

/* The config's directory, as the machine's disk shows it (writes stay on
 * the disk), also at CONFIG_MOUNT, where the command runs: what a program
 * learns of its working directory (getcwd, CPython opening its script by
 * absolute path) is then the same wherever the config lies on the host.
 * The two directories made for it get fixed times. True if mounted. */
static bool mount_config_dir(struct world *w, const char *root)
{
    /* Not where the disk fell back to the host's own root: the directories
     * would be made on the host. */
    struct statfs fs;
    if (!w->conf->dir_mounted || statfs(root, &fs) != 0 || fs.f_type != OVERLAYFS_SUPER_MAGIC) return false;
    char parent[1200], dst[1200], src[1200];
    snprintf(dst, sizeof dst, "%s%s", root, CONFIG_MOUNT);
    snprintf(parent, sizeof parent, "%s", dst);
    *strrchr(parent, '/') = 0;
    bool made_parent = mkdir(parent, 0755) == 0, made = mkdir(dst, 0755) == 0;
    struct timespec epoch[2] = { { (time_t)w->conf->epoch_s, 0 }, { (time_t)w->conf->epoch_s, 0 } };
    if (made) utimensat(AT_FDCWD, dst, epoch, 0);
    if (made_parent) utimensat(AT_FDCWD, parent, epoch, 0);
    snprintf(src, sizeof src, "%s%s", root, w->conf->dir);
    return mount(src, dst, NULL, MS_BIND | MS_REC, NULL) == 0;
}

/* The machine's helper or its init could not make the machine: it tells
 * dsim why (over `report`) and dies, and the run fails with that reason. */
static void init_fail(int report, const char *what)
{
    char msg[256];
    int n = snprintf(msg, sizeof msg, "%s: %s", what, strerror(errno));
    if (n > 0 && write(report, msg, (size_t)n) < 0) {}
    _exit(1);
}

/* The mount at path and everything under it made read-only (and nosuid,
 * nodev, noexec), in one call: machines cannot undo it (their mounts are
 * locked, their user namespace owns none of them). */
static void seal_mount(const char *path)
{
    struct { uint64_t set, clr, propagation, userns_fd; } attr = {
        0x1 | 0x2 | 0x4 | 0x8, 0, 0, 0      /* MOUNT_ATTR_RDONLY | NOSUID | NODEV | NOEXEC */
    };
    if (syscall(SYS_mount_setattr, AT_FDCWD, path, AT_RECURSIVE, &attr, sizeof attr) != 0)
        mount(NULL, path, NULL, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL);
}

/* The same for a directory that is not a mount of its own: bound onto
 * itself first. */
static void make_readonly(const char *path)
{
    if (mount(path, path, NULL, MS_BIND | MS_REC, NULL) == 0) seal_mount(path);
}

/* The machine's own /dev: a small tmpfs with the harmless devices bound
 * from the host, its own pseudo-terminals and shared memory, nothing of
 * another machine's, and no device that reaches the host (disks, loops,
 * kmsg, hwrng, kvm, net/tun, vsock). */
static void private_dev(struct world *w, const char *root, int report)
{
    char dev[1200], node[1300], src[64];
    snprintf(dev, sizeof dev, "%s/dev", root);
    if (mount("tmpfs", dev, "tmpfs", MS_NOSUID | MS_NOEXEC | MS_NOATIME, "mode=755,size=1m,nr_inodes=64") != 0)
        init_fail(report, "mount the machine's /dev");
    for (size_t i = 0; i < sizeof dev_nodes / sizeof *dev_nodes; i++) {
        snprintf(node, sizeof node, "%s/%s", dev, dev_nodes[i]);
        snprintf(src, sizeof src, "/dev/%s", dev_nodes[i]);
        close(open(node, O_CREAT | O_WRONLY | O_CLOEXEC, 0666));
        if (mount(src, node, NULL, MS_BIND, NULL) != 0) unlink(node);
    }
    snprintf(node, sizeof node, "%s/kmsg", dev);        /* writes go nowhere, reads find nothing */
    close(open(node, O_CREAT | O_WRONLY | O_CLOEXEC, 0644));
    mount("/dev/null", node, NULL, MS_BIND, NULL);
    /* A hardware generator on every machine, whatever the host has: its
     * reads are the machine's stream (syscalls/rw.c), as urandom's are. */
    snprintf(node, sizeof node, "%s/hwrng", dev);
    close(open(node, O_CREAT | O_WRONLY | O_CLOEXEC, 0600));
    mount("/dev/urandom", node, NULL, MS_BIND, NULL);
    snprintf(node, sizeof node, "%s/pts", dev);
    mkdir(node, 0755);
    mount("devpts", node, "devpts", MS_NOSUID | MS_NOEXEC, "newinstance,ptmxmode=0666,mode=0620");
    snprintf(node, sizeof node, "%s/ptmx", dev);
    if (symlink("pts/ptmx", node) != 0) {}
    static const char *const links[][2] = { { "fd", "/proc/self/fd" }, { "stdin", "/proc/self/fd/0" },
                                            { "stdout", "/proc/self/fd/1" }, { "stderr", "/proc/self/fd/2" },
                                            { "core", "/proc/kcore" } };
    for (size_t i = 0; i < sizeof links / sizeof *links; i++) {
        snprintf(node, sizeof node, "%s/%s", dev, links[i][0]);
        if (symlink(links[i][1], node) != 0) {}
    }
    snprintf(node, sizeof node, "%s/shm", dev);         /* POSIX shm: the machine's own */
    mkdir(node, 01777);
    if (mount("tmpfs", node, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOATIME, "mode=1777") == 0)
        machine_file_times(w, AT_FDCWD, node);
    snprintf(node, sizeof node, "%s/mqueue", dev);      /* POSIX queues of its own IPC namespace */
    mkdir(node, 01777);
    mount("mqueue", node, "mqueue", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL);
}

/* /proc's windows on the host: masked or read-only. */
static void seal_proc(const char *root)
{
    char path[1300];
    struct stat st;
    for (size_t i = 0; i < sizeof proc_masked / sizeof *proc_masked; i++) {
        snprintf(path, sizeof path, "%s%s", root, proc_masked[i]);
        if (lstat(path, &st) == 0 && !S_ISDIR(st.st_mode)) mount("/dev/null", path, NULL, MS_BIND, NULL);
    }
    for (size_t i = 0; i < sizeof proc_readonly / sizeof *proc_readonly; i++) {
        snprintf(path, sizeof path, "%s%s", root, proc_readonly[i]);
        if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode)) make_readonly(path);
    }
}


/* The first of the machine's set-up, by its helper (host root) in the new
 * mount, UTS, net and IPC namespaces, before its pid namespace exists:
 * its names, its disk at root. host_root: the host's / (its times). */
static void machine_base(struct world *w, struct machine *m, char *root, size_t rootlen, struct stat *host_root)
{
    sethostname(m->name, strlen(m->name));
    setdomainname("(none)", 6);
    /* Simulated UDP sockets are AF_UNIX datagram sockets: their kernel
     * queue must not be the limit (the simulation keeps UDP's byte limit).
     * The machine's net namespace's, not the host's. */
    int q = open("/proc/sys/net/unix/max_dgram_qlen", O_WRONLY | O_CLOEXEC);
    if (q >= 0) {
        if (write(q, "65536", 5) != 5) {}
        close(q);
    }
    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL);
    stat("/", host_root);
    disk_setup(w, m, root, rootlen);
}

/* The rest, once its /proc is at root/proc: the files over the host's in
 * /proc, /dev, /sys and /etc, the config's directory, then pivot_root
 * into the disk and lo up. True if the config's directory is at
 * CONFIG_MOUNT. */
static bool machine_rest(struct world *w, struct machine *m, const char *root, const struct stat *host_root,
                         int report)
{
    char src[512], dst[1200];
    vfs_bind(root, "/proc/");
    /* Uptime moves with virtual time: a file of the machine's own, which the
     * supervisor rewrites whenever the machine opens /proc/uptime. */
    snprintf(src, sizeof src, "%s/vfs/uptime.%s", w->run_dir, m->name);
    close(open(src, O_CREAT | O_WRONLY | O_CLOEXEC, 0444));
    snprintf(dst, sizeof dst, "%s/proc/uptime", root);
    vfs_bind_fixed(w, src, dst, 0);
    /* A new UUID at each open, from the machine's entropy, and a timer
     * list of the machine's clocks (syscalls/open.c). */
    static const char *const live[][2] = { { "uuid", "/proc/sys/kernel/random/uuid" }, { "timer_list", "/proc/timer_list" } };
    for (size_t i = 0; i < sizeof live / sizeof *live; i++) {
        snprintf(src, sizeof src, "%s/vfs/%s.%s", w->run_dir, live[i][0], m->name);
        close(open(src, O_CREAT | O_WRONLY | O_CLOEXEC, 0444));
        snprintf(dst, sizeof dst, "%s%s", root, live[i][1]);
        vfs_bind_fixed(w, src, dst, 0);
    }
    for (size_t i = 0; i < sizeof null_files / sizeof *null_files; i++) {
        snprintf(dst, sizeof dst, "%s%s", root, null_files[i]);
        mount("/dev/null", dst, NULL, MS_BIND, NULL);
    }
    seal_proc(root);
    private_dev(w, root, report);
    /* A sysfs of the machine's net namespace (lo only in class/net), not
     * the host's tree: none of its cgroups, tracing or interfaces, and one
     * mount where a bind of the host's copied each of its mounts. No
     * fallback to that bind: the machine would see the host's. */
    snprintf(dst, sizeof dst, "%s/sys", root);
    if (mount("sysfs", dst, "sysfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) != 0)
        init_fail(report, "mount the machine's /sys");
    vfs_bind(root, "/sys/");
    seal_mount(dst);
    bool config_mounted = mount_config_dir(w, root);
    vfs_bind(root, "/etc/");
    char text[80];
    snprintf(text, sizeof text, "%s\n", m->name);
    bind_own_file(w, m, root, "hostname", "/etc/hostname", text);
    /* The host's machine id would tell hosts apart: one from the machine's
     * name, the same on every host and in every run. */
    uint64_t h1 = 1469598103934665603ull, h2 = 0x6473696d6d616368ull;
    for (const char *c = m->name; *c; c++) {
        h1 = (h1 ^ (unsigned char)*c) * 1099511628211ull;
        h2 = (h2 ^ (unsigned char)*c) * 0x100000001b3ull + 0x9e3779b97f4a7c15ull;
    }
    snprintf(text, sizeof text, "%016llx%016llx\n", (unsigned long long)h1, (unsigned long long)h2);
    bind_own_file(w, m, root, "machine-id", "/etc/machine-id", text);
    bind_own_file(w, m, root, "machine-id", "/var/lib/dbus/machine-id", text);
    /* pivot_root, not chroot: the disk becomes the namespace's root, so
     * /proc/PID/maps names files by the machine's own paths, which dsim
     * (the lower layer) can open to symbolize stacks. */
    char old[700];
    snprintf(old, sizeof old, "%s/.dsim-old-root", root);
    mkdir(old, 0700);
    if (chdir(root) != 0) init_fail(report, "chdir to the machine's disk");
    if (syscall(SYS_pivot_root, ".", ".dsim-old-root") != 0) init_fail(report, "pivot_root into the machine's disk");
    umount2("/.dsim-old-root", MNT_DETACH);
    rmdir("/.dsim-old-root");
    /* Its making left the root directory with the host's time of now. */
    struct timespec root_times[2] = { host_root->st_mtim, host_root->st_mtim };
    utimensat(AT_FDCWD, "/", root_times, 0);
    if (chdir("/") != 0) init_fail(report, "chdir /");
    return config_mounted;
}

/* execvp with the machine's PATH, not dsim's (no allocation: runs after fork). */
static void exec_in_path(char *const argv[], char *const envp[])
{
    const char *path = "/usr/bin:/bin";
    for (char *const *e = envp; *e; e++)
        if (!strncmp(*e, "PATH=", 5)) path = *e + 5;
    if (strchr(argv[0], '/')) { execve(argv[0], argv, envp); return; }
    char full[4096];
    for (const char *p = path; *p;) {
        size_t n = strcspn(p, ":");
        if (n > 0 && n + strlen(argv[0]) + 2 < sizeof full) {
            memcpy(full, p, n);
            full[n] = '/';
            strcpy(full + n + 1, argv[0]);
            execve(full, argv, envp);
        }
        p += n + (p[n] == ':');
    }
}

/* Limits are the machine's, every one, not the host's or the caller's:
 * the stack limit shapes the memory layout, programs read and raise the
 * fd limit, and a shell's ulimit prints them all. -1 if a limit that must
 * hold cannot be set (the host's hard limit is lower). */
static int pin_limits(pid_t pid)
{
    static const struct { int res; struct rlimit lim; bool strict; } limits[] = {
        { RLIMIT_STACK, { 8 << 20, RLIM_INFINITY }, true }, { RLIMIT_NOFILE, { 1024, 4096 }, true },
        { RLIMIT_CORE, { 0, RLIM_INFINITY }, true }, { RLIMIT_NPROC, { 63536, 63536 }, true },
        { RLIMIT_CPU, { RLIM_INFINITY, RLIM_INFINITY }, false },
        { RLIMIT_FSIZE, { RLIM_INFINITY, RLIM_INFINITY }, false },
        { RLIMIT_DATA, { RLIM_INFINITY, RLIM_INFINITY }, false },
        { RLIMIT_AS, { RLIM_INFINITY, RLIM_INFINITY }, false },
        { RLIMIT_RSS, { RLIM_INFINITY, RLIM_INFINITY }, false },
        { RLIMIT_LOCKS, { RLIM_INFINITY, RLIM_INFINITY }, false },
        { RLIMIT_MEMLOCK, { 8 << 20, 8 << 20 }, false }, { RLIMIT_SIGPENDING, { 63536, 63536 }, false },
        { RLIMIT_MSGQUEUE, { 819200, 819200 }, false }, { RLIMIT_NICE, { 0, 0 }, false },
        { RLIMIT_RTPRIO, { 0, 0 }, false }, { RLIMIT_RTTIME, { RLIM_INFINITY, RLIM_INFINITY }, false },
    };
    int r = 0;
    for (size_t i = 0; i < sizeof limits / sizeof *limits; i++) {
        if (prlimit(pid, limits[i].res, &limits[i].lim, NULL) == 0) continue;
        if (limits[i].strict) r = -1;   /* never the host's */
        /* The others: as close as the host's hard limit allows. */
        struct rlimit cur;
        if (prlimit(pid, limits[i].res, NULL, &cur) == 0) {
            cur.rlim_cur = cur.rlim_max;
            prlimit(pid, limits[i].res, &cur, NULL);
        }
    }
    return r;
}

/* Nothing of dsim's or the caller's signal state (a shell starts
 * background jobs with SIGINT and SIGQUIT ignored) may reach the machine. */
static void default_signals(void)
{
    struct { void *handler; unsigned long flags; void *restorer; uint64_t mask; } dfl = { SIG_DFL, 0, 0, 0 };
    for (int sig = 1; sig <= 64; sig++)       /* raw: glibc guards its own 32 and 33 */
        if (sig != SIGKILL && sig != SIGSTOP) syscall(SYS_rt_sigaction, sig, &dfl, NULL, 8);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
}

struct command_args {
    struct machine *m;
    const struct filter_prog *fp;
    const char *dir;
    bool tsc_fault;
    char *const *argv;          /* /bin/sh -c COMMAND */
    char **envp;                /* with a free slot at envn, for PWD */
    size_t envn;
    char *const *words;         /* COMMAND's words, exec'd without the shell (command.h), or NULL */
    char pwd[4096 + 8];         /* "PWD=" and the directory, written by the command's process */
};

/* COMMAND's words exec'd as /bin/sh -c COMMAND would exec them: looked up in
 * the machine's PATH, with PWD (the working directory, as getcwd says)
 * exported. Returns if no exec succeeded: the shell then says why, as
 * before. */
static void exec_words(struct command_args *a)
{
    memcpy(a->pwd, "PWD=", 4);
    if (getcwd(a->pwd + 4, sizeof a->pwd - 4)) a->envp[a->envn] = a->pwd, a->envp[a->envn + 1] = NULL;
    exec_in_path(a->words, a->envp);
    a->envp[a->envn] = NULL;
}

static void command_exec(struct command_args *a)
{
    struct machine *m = a->m;
    const struct filter_prog *fp = a->fp;
    const char *dir = a->dir;
    bool tsc_fault = a->tsc_fault;
    char *const *argv = a->argv, *const *envp = a->envp;
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    /* pid 1 first becomes the machine's init (init_exec): until then, its
     * command line and name are dsim's, and the command must not look. */
    close(INIT_READY_FD);
    char c;
    while (read(INIT_WAIT_FD, &c, 1) < 0 && errno == EINTR) {}
    /* Only stdin, stdout and stderr (machine_stdio): nothing of dsim's (the
     * trace file, the caller's fds) may reach the machine. */
    syscall(SYS_close_range, 3, ~0U, 0);
    default_signals();
    umask(022);
    if (chdir(dir) != 0) _exit(126);
    if (pin_limits(0) != 0) {
        static const char msg[] = "dsim: cannot pin the machine's resource limits (the host's hard limit is lower)\n";
        if (write(2, msg, sizeof msg - 1) < 0) {}
        _exit(126);
    }
    setpriority(PRIO_PROCESS, 0, 0);     /* not the caller's nice value */
    personality(ADDR_NO_RANDOMIZE);
    /* rdtsc faults and is answered from virtual time; where it is
     * rewritten instead, a site the rewrite missed must show, not hide. */
    prctl(PR_SET_TSC, tsc_fault ? PR_TSC_SIGSEGV : PR_TSC_ENABLE);   /* not the supervisor's */
    prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
    struct sock_fprog prog = { (unsigned short)fp->len, fp->insns };
    if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) != 0) _exit(126);
    if (m->conf->argv) exec_in_path(m->conf->argv, envp);
    else {
        if (a->words) exec_words(a);
        execve(argv[0], argv, envp);
    }
    _exit(127);
}

static int command_main(void *arg)
{
    command_exec(arg);
    return 127;
}

/* The machine's user namespace (its init's and command's) maps every id
 * to itself: files keep their owners (a server's check of its data
 * directory's owner still holds, a package manager still writes as root),
 * and root there is root only over what the namespace owns: the machine's
 * pid namespace, nothing of the host's: no capability over the host's
 * mounts, devices, kernel or processes, nor over the machine's mounts,
 * hostname or network (the host's user namespace owns those namespaces).
 * /proc/sys, /sys and the masked /proc files (sysctls check only the uid)
 * are read-only mounts it cannot undo. 0, or -1 and errno. */
static int map_ids(pid_t pid)
{
    static const char *const maps[] = { "uid_map", "gid_map" };
    static const char all[] = "0 0 4294967295\n";
    for (int i = 0; i < 2; i++) {
        char path[64];
        snprintf(path, sizeof path, "/proc/%d/%s", (int)pid, maps[i]);
        int fd = open(path, O_WRONLY | O_CLOEXEC);
        if (fd < 0) return -1;
        ssize_t n = write(fd, all, sizeof all - 1);
        int e = errno;
        close(fd);
        if (n != (ssize_t)sizeof all - 1) { errno = n < 0 ? e : EIO; return -1; }
    }
    return 0;
}

/* ---- pid 1 ---- */

/* The program pid 1 becomes (init_image.S), in a memfd: exec'd from there
 * it needs no file on the host, nor an exec-able /tmp. -1 and errno. */
static int init_image_fd(void)
{
    extern const char dsim_init_image[], dsim_init_image_end[];
    size_t len = (size_t)(dsim_init_image_end - dsim_init_image);
    /* MFD_EXEC: kernels with vm.memfd_noexec (6.3) want it said. */
    int fd = (int)syscall(SYS_memfd_create, "init", MFD_CLOEXEC | MFD_EXEC);
    if (fd < 0 && errno == EINVAL) fd = (int)syscall(SYS_memfd_create, "init", MFD_CLOEXEC);
    if (fd < 0) return -1;
    if (write(fd, dsim_init_image, len) != (ssize_t)len) {
        close(fd);
        errno = EIO;
        return -1;
    }
    return fd;
}

/* The machine's stdin (/dev/null), stdout and stderr, as fds 0, 1 and 2 of
 * init, and so of the command it forks. */
static int machine_stdio(struct machine *m)
{
    int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
    return devnull < 0 || dup2(devnull, 0) < 0 || dup2(m->out_fd, 1) < 0 || dup2(m->err_fd, 2) < 0 ? -1 : 0;
}

static int fd_above(int fd, int floor)
{
    int moved = fcntl(fd, F_DUPFD_CLOEXEC, floor);
    close(fd);
    return moved;
}

/* Puts the image at INIT_IMAGE_FD and a pipe at INIT_WAIT_FD (read end)
 * and INIT_READY_FD (write end, kept across init's exec), and closes every
 * other fd but stdio: the command is forked with a small fd table of its
 * own. */
static int init_fds(int image)
{
    int ready[2];
    if (pipe2(ready, O_CLOEXEC) != 0) return -1;
    int floor = INIT_IMAGE_FD + 1;
    image = fd_above(image, floor);
    ready[0] = fd_above(ready[0], floor);
    ready[1] = fd_above(ready[1], floor);
    if (image < 0 || ready[0] < 0 || ready[1] < 0 || dup3(image, INIT_IMAGE_FD, O_CLOEXEC) < 0 ||
        dup3(ready[0], INIT_WAIT_FD, O_CLOEXEC) < 0 || dup2(ready[1], INIT_READY_FD) < 0)
        return -1;
    syscall(SYS_close_range, floor, ~0U, 0);
    return 0;
}

/* pid 1 execs the image with a fixed command line and an empty
 * environment, in a state of its own, not dsim's or the caller's (signal
 * dispositions, limits, nice value, umask), without address
 * randomization. It never returns. */
static void init_exec(void)
{
    personality(ADDR_NO_RANDOMIZE);     /* its maps and /proc/1/stat's addresses */
    prctl(PR_SET_TSC, PR_TSC_ENABLE);   /* the supervisor's fault is not init's */
    default_signals();
    pin_limits(0);
    setpriority(PRIO_PROCESS, 0, 0);
    umask(022);
    close(INIT_WAIT_FD);
    for (int fd = 0; fd <= 2; fd++) fcntl(fd, F_SETFD, FD_CLOEXEC);
    char *const argv[] = { "/sbin/init", NULL }, *const envp[] = { NULL };
    syscall(SYS_execveat, INIT_IMAGE_FD, "", argv, envp, AT_EMPTY_PATH);
    /* Loud, in the machine's stderr: its pid 1 would be dsim's. */
    char msg[160];
    int n = snprintf(msg, sizeof msg, "dsim: cannot exec the machine's init: %s\n", strerror(errno));
    if (write(2, msg, (size_t)n) < 0) {}
    _exit(126);
}

static char **build_env(struct machine *m)
{
    size_t n = sizeof default_env / sizeof *default_env;
    char **env = calloc(n + m->conf->nenv + 3, sizeof *env);     /* and PWD's slot, and NULL */
    size_t k = 0;
    for (size_t i = 0; i < n; i++) env[k++] = strdup(default_env[i]);
    if (asprintf(&env[k], "HOSTNAME=%s", m->name) > 0) k++;
    for (size_t i = 0; i < m->conf->nenv; i++) {
        const char *e = m->conf->env[i];
        size_t nl = strcspn(e, "=");
        for (size_t j = 0; j < k; j++)      /* the config overrides a default */
            if (strncmp(env[j], e, nl + 1) == 0) { free(env[j]); env[j] = env[--k]; break; }
        env[k++] = strdup(e);
    }
    env[k] = NULL;
    return env;
}

static void free_env(char **env) { for (char **e = env; *e; e++) free(*e); free(env); }

static pid_t waitpid_again(pid_t pid, int *status)
{
    pid_t r;
    while ((r = waitpid(pid, status, __WALL)) < 0 && errno == EINTR) {}
    return r;
}

/* The devices and ids of the machine's mounts, in mountinfo order (its
 * init makes them in a fixed order), for machine_dev_key and
 * machine_mount_id. */
void machine_note_mounts(struct machine *m, pid_t pid)
{
    char path[64], line[4096];
    snprintf(path, sizeof path, "/proc/%d/mountinfo", (int)pid);
    FILE *f = fopen(path, "re");
    m->nmount_devs = m->nmount_ids = 0;
    while (f && fgets(line, sizeof line, f)) {
        unsigned maj, min;
        int id;
        if (sscanf(line, "%d %*d %u:%u", &id, &maj, &min) != 3) continue;
        if (!(m->mount_ids = realloc(m->mount_ids, (m->nmount_ids + 1) * sizeof *m->mount_ids))) abort();
        m->mount_ids[m->nmount_ids++] = id;
        uint64_t dev = makedev(maj, min);
        bool seen = false;
        for (size_t i = 0; i < m->nmount_devs && !seen; i++) seen = m->mount_devs[i] == dev;
        if (seen) continue;
        m->mount_devs = realloc(m->mount_devs, (m->nmount_devs + 1) * sizeof *m->mount_devs);
        if (!m->mount_devs) abort();
        m->mount_devs[m->nmount_devs++] = dev;
    }
    if (f) fclose(f);
}

/* What a wait for init or the command saw instead of what it expected. */
static void describe_status(char *why, size_t len, const char *who, int status)
{
    if (WIFEXITED(status)) snprintf(why, len, "%s exited with status %d", who, WEXITSTATUS(status));
    else if (WIFSIGNALED(status)) snprintf(why, len, "%s was killed by signal %d", who, WTERMSIG(status));
    else snprintf(why, len, "%s stopped with signal %d (event %d)", who, WSTOPSIG(status), status >> 16);
}

/* A stack for a child that runs in dsim's memory until its exec, with a
 * guard page below it; made once and kept (unmapping is page-table work
 * too). NULL if there is no memory. */
enum { SPAWN_STACK = 1 << 20 };
static char *spawn_stack(void)
{
    char *base = mmap(NULL, SPAWN_STACK + 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK,
                      -1, 0);
    if (base == MAP_FAILED) return NULL;
    mprotect(base, 4096, PROT_NONE);
    return base + 4096 + SPAWN_STACK;
}

/* What the machine's helper, init and command run with. All three run in
 * dsim's own memory (CLONE_VM) until they exit or exec: a copy of dsim's
 * address space for each, its copy-on-write faults and its teardown at
 * the exec cost milliseconds per machine on this kind of host, and
 * page-table work does not scale over CPUs (docs/design.md §12).
 * machine_start waits for the helper's exit and init's exec, so their
 * stacks serve every start; the command runs to its exec only when the
 * run loop first steps it, so what it reads (this record, its stack, argv
 * and envp) is kept per machine until the machine starts again. */
struct spawn {
    struct world *w;
    struct machine *m;
    pid_t dsim;
    int sync, report;           /* init's ends of the pipes (the helper reports too) */
    int dsim_sync, dsim_report; /* dsim's, which init closes */
    bool proc_pidns;            /* /proc by fsconfig "pidns", else by a process in the pid namespace */
    uint64_t cap_bset;          /* dsim's capability bounding set */
    char *init_stack, *cmd_stack;
    /* What the helper leaves: init's host pid (0: none), the machine's
     * ns_last_pid (-1: none), in dsim's fd table, which it shares. */
    pid_t init;
    int pid_cursor_fd;
    /* The machine's network namespace: netns_fd, the one kept for this
     * machine index (-1: none yet), which the helper joins if nothing of an
     * earlier machine is left in it (netns_reused), else it makes a new
     * one and leaves it open at netns_new for dsim to keep. */
    bool netns_reuse;
    int netns_fd, netns_new;
    bool netns_reused;
    struct command_args ca;
    char *argv[4];
    char **envp;
    char **words;               /* the command's, if it runs without the shell */
};

/* Runs fn(arg) as a process of the pid namespace pidns: a child of the
 * caller in its memory, fd table shared (CLONE_VFORK: the caller waits
 * for its exit), made after the caller entered pidns for its children
 * (setns pid_for_children; host root has CAP_SYS_ADMIN over the
 * namespace's owner). The caller's own pid namespace for its children is
 * put back. fn's exit status, or -1 and errno. */
static int in_pidns(int pidns, int (*fn)(void *), void *arg)
{
    static char *stack;
    if (!stack && !(stack = spawn_stack())) return -1;
    int self = open("/proc/self/ns/pid", O_RDONLY | O_CLOEXEC);
    if (self < 0) return -1;
    if (setns(pidns, CLONE_NEWPID) != 0) {
        int e = errno;
        close(self);
        errno = e;
        return -1;
    }
    pid_t child = clone(fn, stack, CLONE_VM | CLONE_FILES | CLONE_VFORK | SIGCHLD, arg);
    int e = errno, status = 0;
    if (child > 0 && waitpid_again(child, &status) != child) e = errno, child = -1;
    if (setns(self, CLONE_NEWPID) != 0) {}      /* its active one: always allowed */
    close(self);
    if (child < 0) { errno = e; return -1; }
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* A process of the machine's pid namespace writes its next-pid cursor. */
struct cursor_write { int fd; pid_t last; int err; };

static int cursor_main(void *arg)
{
    struct cursor_write *c = arg;
    char text[16];
    int n = snprintf(text, sizeof text, "%d", (int)c->last);
    if (pwrite(c->fd, text, (size_t)n, 0) == n) return 0;
    c->err = errno;
    return 1;
}

int machine_reset_pid_cursor(struct machine *m, pid_t last_pid)
{
    if (m->pid_cursor_fd < 0 || m->init_pid <= 0 || m->init_reaped) {
        errno = ESRCH;
        return -1;
    }
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/ns/pid", (int)m->init_pid);
    int ns = open(path, O_RDONLY | O_CLOEXEC);
    if (ns < 0) return -1;
    struct cursor_write c = { m->pid_cursor_fd, last_pid, EIO };
    int r = in_pidns(ns, cursor_main, &c);
    int e = r < 0 ? errno : c.err;
    close(ns);
    if (r == 0) return 0;
    errno = e;
    return -1;
}

/* The older kernels' way to the machine's /proc: mounted by a process of
 * its pid namespace (host root, so over the host's mount namespace too),
 * which takes pid 2 there; it opens ns_last_pid and sets the cursor back
 * to 1, so that the command, forked once it is gone, is pid 2 still. */
struct proc_mount { const char *dst; int cursor_fd; const char *what; int err; };

static int proc_mount_main(void *arg)
{
    struct proc_mount *p = arg;
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    char path[1300];
    p->what = "mount the machine's /proc";
    if (mount("proc", p->dst, "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) != 0) goto fail;
    p->what = "open the machine's ns_last_pid";
    snprintf(path, sizeof path, "%s/sys/kernel/ns_last_pid", p->dst);
    if ((p->cursor_fd = open(path, O_WRONLY | O_CLOEXEC)) < 0) goto fail;
    p->what = "set the machine's pid cursor back";
    if (pwrite(p->cursor_fd, "1", 1, 0) != 1) goto fail;
    return 0;
fail:
    p->err = errno;
    return 1;
}

/* The machine's /proc at dst: proc of its pid namespace (pidns, an fd),
 * made where today's tree wants it (mounts are listed in the order they
 * were made), and its ns_last_pid kept open in s->pid_cursor_fd (before
 * /proc/sys is sealed: an open fd outlives the read-only bind). init,
 * root only in the pid namespace's user namespace, could not mount it:
 * the mount namespace is the host's user namespace's. */
static void machine_proc(struct spawn *s, const char *dst, int pidns)
{
    char path[1300];
    if (s->proc_pidns) {
        int fs = fsopen("proc", FSOPEN_CLOEXEC);
        /* The source mount(2) names ("proc" in /proc/self/mounts). */
        if (fs < 0 || fsconfig(fs, FSCONFIG_SET_STRING, "source", "proc", 0) != 0 ||
            fsconfig(fs, FSCONFIG_SET_FD, "pidns", NULL, pidns) != 0 ||
            fsconfig(fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0) != 0)
            init_fail(s->report, "make the machine's /proc (fsconfig pidns; DSIM_PROC_MOUNT=helper avoids it)");
        int mnt = fsmount(fs, FSMOUNT_CLOEXEC, MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC);
        if (mnt < 0 || move_mount(mnt, "", AT_FDCWD, dst, MOVE_MOUNT_F_EMPTY_PATH) != 0)
            init_fail(s->report, "mount the machine's /proc (fsmount, move_mount)");
        close(mnt);
        close(fs);
        snprintf(path, sizeof path, "%s/sys/kernel/ns_last_pid", dst);
        if ((s->pid_cursor_fd = open(path, O_WRONLY | O_CLOEXEC)) < 0)
            init_fail(s->report, "open the machine's ns_last_pid");
        return;
    }
    struct proc_mount p = { dst, -1, "enter the machine's pid namespace", 0 };
    int r = in_pidns(pidns, proc_mount_main, &p);
    s->pid_cursor_fd = p.cursor_fd;
    if (r > 0) errno = p.err;
    if (r != 0) init_fail(s->report, p.what);
}

static int init_main(void *arg);

/* True if no socket is left in the network namespace the caller is in:
 * its unix sockets are the only kernel state a machine can leave there (it
 * cannot change lo, routes or sysctls: the host's user namespace owns the
 * namespace, and TCP and UDP are simulated). */
static bool netns_empty(void)
{
    char text[256];
    int fd = open("/proc/self/net/unix", O_RDONLY | O_CLOEXEC);
    if (fd < 0) return false;
    ssize_t n = read(fd, text, sizeof text);
    close(fd);
    return n > 0 && memchr(text, '\n', (size_t)n) == text + n - 1;    /* the header alone */
}

/* Puts the helper (and so init and the command) in the machine's network
 * namespace: the one kept for the machine's index when it is empty (a new
 * namespace and its teardown cost 1.3 ms of a short seed's ~10 here, and
 * the kernel's cleanup of dead ones is one worker for all), else a new
 * one, with lo up, which dsim keeps from then on. */
static void machine_netns(struct spawn *s)
{
    s->netns_reused = s->netns_reuse && s->netns_fd >= 0 && setns(s->netns_fd, CLONE_NEWNET) == 0 && netns_empty();
    if (s->netns_reused) return;
    if (unshare(CLONE_NEWNET) != 0) init_fail(s->report, "make the machine's network namespace");
    int sock = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (sock >= 0) {
        struct ifreq ifr;
        memset(&ifr, 0, sizeof ifr);
        strcpy(ifr.ifr_name, "lo");
        if (ioctl(sock, SIOCGIFFLAGS, &ifr) == 0) {
            ifr.ifr_flags |= IFF_UP | IFF_RUNNING;
            ioctl(sock, SIOCSIFFLAGS, &ifr);
        }
        close(sock);
    }
    if (s->netns_reuse) s->netns_new = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
}

/* The machine's helper, a child of dsim's and host root, in the machine's
 * new mount, UTS, net and IPC namespaces (the host's user namespace owns
 * them: nothing in the machine can change its mounts, hostname or
 * network): makes the machine's disk, then its init, which is dsim's
 * child (CLONE_PARENT, so dsim traces and reaps it) and pid 1 of a new pid
 * namespace owned by a new user namespace, the machine's (root there, not
 * on the host), then the machine's /proc of that pid namespace and every
 * other mount, in the order of the tree they form, and pivot_roots into
 * the disk (which moves init's root with its own). Exits 0 when the
 * machine is ready for init to fork the command. */
static int helper_main(void *arg)
{
    struct spawn *s = arg;
    struct world *w = s->w;
    struct machine *m = s->m;
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != s->dsim) _exit(1);
    machine_netns(s);
    char root[600], dst[1200];
    struct stat host_root;
    machine_base(w, m, root, sizeof root, &host_root);
    if (chdir("/") != 0) {}     /* init's cwd: the root pivot_root moves */
    /* The machine's user namespace first, so that it owns the pid
     * namespace made in the same call (clone(2)); its ids are mapped
     * before init goes on. The exit signal is dsim's child's: the
     * helper's (CLONE_PARENT takes it from the caller). */
    pid_t init = clone(init_main, s->init_stack, CLONE_VM | CLONE_PARENT | CLONE_NEWUSER | CLONE_NEWPID, s);
    if (init < 0) init_fail(s->report, "make the machine's user and pid namespaces");
    s->init = init;
    if (map_ids(init) != 0) init_fail(s->report, "map the machine's user ids");
    /* The machine's limits, nice value and OOM score adjustment, set here
     * where they may still be raised or lowered (init, root only in its
     * user namespace, could not): its command inherits them. The caller's
     * adjustment is a host's choice (a service manager's, a CI runner's),
     * and the machine reads it in /proc/PID/oom_score_adj. */
    pin_limits(init);
    setpriority(PRIO_PROCESS, (id_t)init, 0);
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/oom_score_adj", (int)init);
    int adj = open(path, O_WRONLY | O_CLOEXEC);
    if (adj >= 0) {
        if (write(adj, "0", 1) != 1) {}
        close(adj);
    }
    snprintf(path, sizeof path, "/proc/%d/ns/pid", (int)init);
    int pidns = open(path, O_RDONLY | O_CLOEXEC);
    if (pidns < 0) init_fail(s->report, "open the machine's pid namespace");
    /* Mounts are made in the order of the tree they form (each mount's
     * own below it, before its next sibling): the command shares this
     * namespace, whose mount table lists mounts in the order they were
     * made, and a copy of it (which the command had) in the tree's order;
     * /proc/self/mounts reads as it did. */
    snprintf(dst, sizeof dst, "%s/proc", root);
    machine_proc(s, dst, pidns);
    close(pidns);
    bool config_mounted = machine_rest(w, m, root, &host_root, s->report);
    s->ca.dir = config_mounted ? CONFIG_MOUNT : w->conf->dir;
    _exit(0);
}

/* pid 1, root in the machine's user namespace: waits for dsim (which
 * traces it), forks the command, and execs the image. */
static int init_main(void *arg)
{
    struct spawn *s = arg;
    struct machine *m = s->m;
    prctl(PR_SET_PDEATHSIG, SIGKILL);     /* dsim's child (CLONE_PARENT) */
    setsid();
    close(s->dsim_sync);
    close(s->dsim_report);
    char c;
    if (read(s->sync, &c, 1) != 1) init_fail(s->report, "waiting for dsim");
    /* The helper's pivot_root moved init's root (and its cwd, the old
     * root) into the machine's disk. */
    if (chdir("/") != 0) init_fail(s->report, "chdir /");
    int image = init_image_fd();
    if (image < 0) init_fail(s->report, "cannot make the machine's init");
    if (machine_stdio(m) != 0) init_fail(s->report, "the machine's stdin, stdout and stderr");
    /* From here on the report pipe is closed: a failure shows in the
     * machine's stderr, and as init's exit status. */
    if (init_fds(image) != 0) _exit(126);
    /* The command, in init's namespaces: root in the machine's user
     * namespace, in a mount namespace the host's user namespace owns, so
     * it can change none of its mounts. Not a copy of its own: copying
     * the machine's ~80 mounts at the start and tearing them down at the
     * exit (which the exit's notice waits for) cost more than a short
     * seed's steps. */
    pid_t cmd = clone(command_main, s->cmd_stack, CLONE_VM | SIGCHLD, &s->ca);
    if (cmd < 0) {
        char msg[200];
        int n = snprintf(msg, sizeof msg, "dsim: cannot fork the machine's command: %s\n", strerror(errno));
        if (write(2, msg, (size_t)n) < 0) {}
        _exit(126);
    }
    /* What /proc/1/status and stat show of init, as when it was host
     * root: its capabilities are dsim's bounding set (root in a new user
     * namespace has every one: the command keeps them, as root of its
     * own namespace had them), and it has used a privilege (stat's flags,
     * PF_SUPERPRIV: a no-op setuid, raw, not glibc's, which would signal
     * dsim's threads). */
    for (int cap = 0; cap < 64; cap++)
        if (!(s->cap_bset & (1ULL << cap))) prctl(PR_CAPBSET_DROP, cap, 0, 0, 0);
    syscall(SYS_setuid, 0);
    init_exec();
    return 126;
}

/* The spawn record of machine index i, its command's stack made once;
 * NULL if there is no memory. */
static struct spawn *spawn_for(size_t i)
{
    static struct spawn **spawns;
    static size_t nspawns;
    if (i >= nspawns) {
        struct spawn **more = realloc(spawns, (i + 1) * sizeof *more);
        if (!more) return NULL;
        for (size_t k = nspawns; k <= i; k++) more[k] = NULL;
        spawns = more;
        nspawns = i + 1;
    }
    if (!spawns[i]) {
        struct spawn *s = calloc(1, sizeof *s);
        if (!s || !(s->cmd_stack = spawn_stack())) { free(s); return NULL; }
        s->netns_fd = s->netns_new = -1;
        spawns[i] = s;
    }
    return spawns[i];
}

int machine_start(struct world *w, struct machine *m, const struct filter_prog *fp, char *why, size_t whylen)
{
    static char *init_stack, *helper_stack;
    m->proc_dev = m->sys_dev = m->dev_dev = 0;     /* a new /proc comes with the new namespace */
    m->ns_known = m->tmp_known = m->kernel_devs_known = false;
    m->boot_ns = machine_monotonic(w, m);
    ipc_free(m);                /* and new IPC objects */
    if (m->pid_cursor_fd >= 0) close(m->pid_cursor_fd);     /* the last incarnation's */
    m->pid_cursor_fd = -1;
    char *command = m->incarnation > 0 && m->conf->command_after_restart ? m->conf->command_after_restart
                                                                         : m->conf->command;
    bool proc_pidns, netns_reuse;
    if (proc_mount_resolve(&proc_pidns, why, whylen) != 0 || netns_reuse_resolve(&netns_reuse, why, whylen) != 0)
        return -1;
    struct spawn *s = spawn_for((size_t)m->index);
    if (!init_stack) init_stack = spawn_stack();
    if (!helper_stack) helper_stack = spawn_stack();
    if (!s || !init_stack || !helper_stack) {
        snprintf(why, whylen, "no memory for the machine's start");
        return -1;
    }
    int sync[2], report[2];
    if (pipe2(sync, O_CLOEXEC) != 0) {
        snprintf(why, whylen, "pipe: %s", strerror(errno));
        return -1;
    }
    if (pipe2(report, O_CLOEXEC | O_NONBLOCK) != 0) {
        snprintf(why, whylen, "pipe: %s", strerror(errno));
        close(sync[0]);
        close(sync[1]);
        return -1;
    }
    /* The machine's last command is gone (this is a new seed, or its
     * restart): its arguments can go. */
    if (s->envp) {
        s->envp[s->ca.envn] = NULL;     /* PWD's slot: the command's process's buffer, not ours */
        free_env(s->envp);
    }
    free(s->words);
    s->words = NULL;
    s->w = w;
    s->m = m;
    s->dsim = getpid();
    s->sync = sync[0];
    s->report = report[1];
    s->dsim_sync = sync[1];
    s->dsim_report = report[0];
    s->proc_pidns = proc_pidns;
    /* dsim's bounding set only shrinks by its own PR_CAPBSET_DROP, which
     * it never makes: read once (64 calls a machine start otherwise). */
    static uint64_t cap_bset;
    static bool cap_bset_read;
    if (!cap_bset_read) {
        for (int cap = 0; cap < 64; cap++)
            if (prctl(PR_CAPBSET_READ, cap, 0, 0, 0) == 1) cap_bset |= 1ULL << cap;
        cap_bset_read = true;
    }
    s->cap_bset = cap_bset;
    s->init_stack = init_stack;
    s->init = 0;
    s->pid_cursor_fd = -1;
    s->argv[0] = "/bin/sh";
    s->argv[1] = "-c";
    s->argv[2] = command;
    s->argv[3] = NULL;
    s->envp = build_env(m);
    size_t envn = 0;
    bool has_pwd = false;
    for (; s->envp[envn]; envn++) has_pwd |= !strncmp(s->envp[envn], "PWD=", 4);
    /* A PWD of the config's: the shell would keep it or not (dash's rule). */
    if (w->conf->command_shell == COMMAND_SHELL_AUTO && !has_pwd) s->words = command_words(command);
    s->ca = (struct command_args){ .m = m, .fp = fp, .tsc_fault = !w->tsc_rewrite, .argv = s->argv,
                                   .envp = s->envp, .envn = envn, .words = s->words };
    /* The kept namespace not for a restart: a machine's proc entries of
     * its network (such as /proc/self/net/dev) are the namespace's, and a
     * restarted machine must see new ones, as under DSIM_NETNS=fresh and
     * as a seed from a snapshot must (the worker's template holds the
     * kept namespace). */
    s->netns_reuse = netns_reuse && m->incarnation == 0;
    s->netns_new = -1;
    /* The helper shares dsim's fd table (CLONE_FILES): the machine's
     * ns_last_pid it opens is dsim's. */
    pid_t helper = clone(helper_main, helper_stack, CLONE_VM | CLONE_FILES | CLONE_NEWNS | CLONE_NEWUTS |
                         CLONE_NEWIPC | SIGCHLD, s);
    int clone_errno = errno, status;
    /* The watchdog's SIGALRM interrupts these waits (no SA_RESTART). */
    pid_t got = helper < 0 ? -1 : waitpid_again(helper, &status);
    if (got < 0) clone_errno = errno;
    if (helper > 0 && got != helper) {
        kill(helper, SIGKILL);  /* not one more instruction in our memory */
        waitpid_again(helper, NULL);
    }
    close(sync[0]);
    close(report[1]);
    if (s->netns_new >= 0) {        /* a new namespace: kept for the next start */
        if (s->netns_fd >= 0) close(s->netns_fd);
        s->netns_fd = s->netns_new;
        s->netns_new = -1;
    }
    pid_t init = s->init;
    m->pid_cursor_fd = s->pid_cursor_fd;
    if (got != helper || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        char said[256] = "";
        ssize_t n = helper > 0 ? read(report[0], said, sizeof said - 1) : -1;
        if (n > 0) said[n] = 0;
        if (helper < 0) snprintf(why, whylen, "clone: %s", strerror(clone_errno));
        else if (n > 0) snprintf(why, whylen, "its set-up failed: %s", said);
        else if (got == helper) describe_status(why, whylen, "its set-up", status);
        else snprintf(why, whylen, "waitpid for its set-up: %s", strerror(clone_errno));
        if (init > 0) {         /* waiting for dsim, in our memory */
            kill(init, SIGKILL);
            waitpid_again(init, NULL);
        }
        if (m->pid_cursor_fd >= 0) close(m->pid_cursor_fd);
        m->pid_cursor_fd = -1;
        close(sync[1]);
        close(report[0]);
        return -1;
    }
    m->init_pid = m->root_pid = init;
    m->init_reaped = false;
    if (ptrace(PTRACE_SEIZE, init, 0, TRACE_OPTIONS) != 0 || write(sync[1], "x", 1) != 1) {
        snprintf(why, whylen, "cannot trace its init: %s", strerror(errno));
        kill(init, SIGKILL);    /* not one more instruction in our memory */
        close(sync[1]);
        close(report[0]);
        return -1;
    }
    close(sync[1]);
    got = waitpid_again(init, &status);
    if (got != init || status >> 8 != (SIGTRAP | (PTRACE_EVENT_FORK << 8))) {
        char said[256] = "";
        ssize_t n = read(report[0], said, sizeof said - 1);
        if (n > 0) said[n] = 0;
        if (got == init && (WIFEXITED(status) || WIFSIGNALED(status))) m->init_reaped = true;
        else kill(init, SIGKILL);
        if (n > 0) snprintf(why, whylen, "its init failed: %s", said);
        else if (got == init) describe_status(why, whylen, "its init", status);
        else snprintf(why, whylen, "waitpid for its init: %s", strerror(errno));
        close(report[0]);
        return -1;
    }
    close(report[0]);
    pid_t cmd = (pid_t)tracer_eventmsg(init);
    /* Init runs on in our memory until its exec: wait for that before
     * dsim goes on (its command waits, stopped, for the run loop). */
    ptrace(PTRACE_CONT, init, 0, 0);
    got = waitpid_again(init, &status);
    if (got != init || status >> 8 != (SIGTRAP | (PTRACE_EVENT_EXEC << 8))) {
        if (got == init && (WIFEXITED(status) || WIFSIGNALED(status))) m->init_reaped = true;
        else kill(init, SIGKILL);
        if (got == init) describe_status(why, whylen, "its init", status);
        else snprintf(why, whylen, "waitpid for its init: %s", strerror(errno));
        return -1;
    }
    ptrace(PTRACE_DETACH, init, 0, 0);
    got = waitpid_again(cmd, &status);
    if (got != cmd || !WIFSTOPPED(status)) {
        if (got == cmd) describe_status(why, whylen, "its command", status);
        else snprintf(why, whylen, "waitpid for its command: %s", strerror(errno));
        return -1;
    }
    /* A test's hook (t_owned_layout.sh), until warm start uses it: the
     * machine's next-pid cursor set before its command runs. */
    const char *cursor = getenv("DSIM_TEST_PID_CURSOR");
    if (cursor && machine_reset_pid_cursor(m, (pid_t)atoi(cursor)) != 0) {
        snprintf(why, whylen, "cannot set its pid cursor: %s", strerror(errno));
        kill(init, SIGKILL);
        return -1;
    }
    machine_note_mounts(m, cmd);
    struct process *p = world_add_process(w, m, cmd, 2);
    p->sh = sighand_new(w);
    struct thread *t = world_add_thread(w, p, cmd, 2);
    t->state = TS_NEW;
    m->main = p;
    m->started = true;
    return 0;
}

/* A task about to be killed may exit on any CPU dsim may use: its exit
 * (the address space's teardown, and an init's namespaces') runs no code
 * of the machine's, so it need not wait for the seeds' CPU, where at -j 1
 * it cost the next seed about a tenth of a short one's time. */
static void unpin(pid_t tid)
{
    const cpu_set_t *any = host_cpus();
    if (any) sched_setaffinity(tid, sizeof *any, any);
}

void machine_kill(struct world *w, struct machine *m)
{
    if (m->pid_cursor_fd >= 0) close(m->pid_cursor_fd);
    m->pid_cursor_fd = -1;
    if (m->init_pid > 0 && !m->init_reaped) {
        unpin(m->init_pid);
        kill(m->init_pid, SIGKILL);
    }
    for (size_t i = 0; i < w->nthreads; i++) {
        struct thread *t = w->threads[i];
        if (t->proc->m == m && t->state != TS_DEAD) {
            unpin(t->tid);
            kill(t->tid, SIGKILL);
            t->state = TS_DYING;
        }
    }
}

#define MAX_INITS 256
static volatile pid_t live_inits[MAX_INITS];

void machine_note_live_init(pid_t pid)
{
    for (int k = 0; k < MAX_INITS; k++) if (!live_inits[k]) { live_inits[k] = pid; break; }
}

void machine_forget_init(pid_t pid)
{
    for (int k = 0; k < MAX_INITS; k++) if (live_inits[k] == pid) live_inits[k] = 0;
}

void machines_kill_all_async(void)
{
    for (int i = 0; i < MAX_INITS; i++)
        if (live_inits[i] > 0) kill(live_inits[i], SIGKILL);
}

/* Reaps the inits of earlier seeds: killed at their seed's end, and not
 * waited for there (teardown). With `block`, waits until every one is
 * gone; else takes only those already dead. */
void machines_reap_earlier_inits(bool block)
{
    for (int k = 0; k < MAX_INITS; k++) {
        pid_t pid = live_inits[k];
        if (pid <= 0) continue;
        pid_t got;
        while ((got = waitpid(pid, NULL, __WALL | (block ? 0 : WNOHANG))) < 0 && errno == EINTR) {}
        if (got == pid || (got < 0 && errno == ECHILD)) live_inits[k] = 0;
    }
}
