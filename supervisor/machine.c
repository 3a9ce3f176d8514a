#include "supervisor/machine.h"
#include "supervisor/tracer.h"
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
#include <sys/mount.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <sched.h>
#include <unistd.h>

/* The environment every machine starts with; never the caller's. */
static const char *const default_env[] = {
    "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
    "HOME=/root", "LANG=C.UTF-8", "TERM=dumb",
};

/* The host facts a machine must not see, replaced by fixed files. */
struct vfile { const char *target; const char *name; };
static const struct vfile vfiles[] = {
    { "/proc/cpuinfo", "cpuinfo" },
    { "/proc/meminfo", "meminfo" },
    { "/proc/sys/kernel/random/boot_id", "boot_id" },
    { "/proc/stat", "stat" },
    { "/proc/loadavg", "loadavg" },
    { "/sys/devices/system/cpu/online", "cpus" },
    { "/sys/devices/system/cpu/possible", "cpus" },
    { "/sys/devices/system/cpu/present", "cpus" },
    { "/etc/hosts", "hosts" },
    { "/etc/resolv.conf", "resolv.conf" },
    { "/proc/version", "version" },
    { "/proc/sys/kernel/osrelease", "osrelease" },
};

static int write_file(const char *dir, const char *name, const char *text)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (!f) return -1;
    fputs(text, f);
    return fclose(f);
}

int machine_write_vfs(struct world *w)
{
    char dir[300], buf[8192];
    snprintf(dir, sizeof dir, "%s/vfs", w->run_dir);
    if (mkdir(dir, 0755) != 0) return -1;
    snprintf(dir, sizeof dir, "%s/disk", w->run_dir);
    if (mkdir(dir, 0755) != 0) return -1;
    snprintf(dir, sizeof dir, "%s/vfs", w->run_dir);
    unsigned n = w->conf->cpus;
    size_t off = 0;
    for (unsigned i = 0; i < n && off < sizeof buf - 512; i++)
        off += (size_t)snprintf(buf + off, sizeof buf - off,
            "processor\t: %u\nvendor_id\t: dsim\ncpu family\t: 6\nmodel\t\t: 0\n"
            "model name\t: dsim virtual CPU\nstepping\t: 0\ncpu MHz\t\t: 1000.000\n"
            "cache size\t: 1024 KB\nphysical id\t: 0\nsiblings\t: %u\ncore id\t\t: %u\n"
            "cpu cores\t: %u\napicid\t\t: %u\nflags\t\t: fpu tsc cx8 cmov mmx fxsr sse sse2 "
            "ht syscall nx lm sse3 ssse3 cx16 sse4_1 sse4_2 popcnt\nbogomips\t: 2000.00\n\n",
            i, n, i, n, i);
    if (write_file(dir, "cpuinfo", buf)) return -1;
    unsigned long long kb = w->conf->memory_bytes / 1024;
    snprintf(buf, sizeof buf,
        "MemTotal:       %llu kB\nMemFree:        %llu kB\nMemAvailable:   %llu kB\n"
        "Buffers:               0 kB\nCached:                0 kB\nSwapCached:            0 kB\n"
        "SwapTotal:             0 kB\nSwapFree:              0 kB\n", kb, kb / 2, kb / 2);
    if (write_file(dir, "meminfo", buf)) return -1;
    snprintf(buf, sizeof buf, n > 1 ? "0-%u\n" : "0\n", n - 1);
    if (write_file(dir, "cpus", buf)) return -1;
    if (write_file(dir, "boot_id", "6473696d-0000-4000-8000-000000000001\n")) return -1;
    /* The kernel uname(2) tells of (syscalls/info.c). */
    if (write_file(dir, "version", "Linux version " DSIM_KERNEL_RELEASE " (dsim@dsim) (gcc) " DSIM_KERNEL_VERSION "\n") ||
        write_file(dir, "osrelease", DSIM_KERNEL_RELEASE "\n"))
        return -1;
    /* CPU times and counters of an idle machine booted at the epoch. */
    off = (size_t)snprintf(buf, sizeof buf, "cpu  0 0 0 0 0 0 0 0 0 0\n");
    for (unsigned i = 0; i < n && off < sizeof buf - 512; i++)
        off += (size_t)snprintf(buf + off, sizeof buf - off, "cpu%u 0 0 0 0 0 0 0 0 0 0\n", i);
    snprintf(buf + off, sizeof buf - off, "intr 0\nctxt 0\nbtime %llu\nprocesses 1\nprocs_running 1\n"
             "procs_blocked 0\nsoftirq 0 0 0 0 0 0 0 0 0 0 0\n", (unsigned long long)(w->conf->epoch_s - (int64_t)(DSIM_BOOT_NS / 1000000000)));
    if (write_file(dir, "stat", buf)) return -1;
    if (write_file(dir, "loadavg", "0.00 0.00 0.00 1/1 1\n")) return -1;
    /* Not the host's resolver, which may even sit at a cluster address
     * (10.0.0.2 in some clouds): one outside the cluster (TEST-NET-1), so
     * a name missing from /etc/hosts fails at once (ENETUNREACH). */
    if (write_file(dir, "resolv.conf", "nameserver 192.0.2.1\noptions attempts:1 timeout:1\n")) return -1;
    /* Every machine's name resolves to its address, from each machine. */
    off = (size_t)snprintf(buf, sizeof buf, "127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n");
    for (size_t i = 0; i < w->conf->nmachines && off < sizeof buf - 100; i++)
        off += (size_t)snprintf(buf + off, sizeof buf - off, "%s\t%s\n", w->conf->machines[i].address,
                                w->conf->machines[i].name);
    return write_file(dir, "hosts", buf);
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
    /* The merged directory shows its upper one's times: the lower's, not
     * the moment the run began. */
    struct stat ls;
    if (mkdir(upper, 0755) == 0 && stat(lower, &ls) == 0) {
        struct timespec times[2] = { ls.st_mtim, ls.st_mtim };
        utimensat(AT_FDCWD, upper, times, 0);
    }
    mkdir(work, 0755);
    /* Relative to the disk: /proc/self/mounts shows the options as given,
     * and the run directory's name differs in every run. */
    if (chdir(disk) == 0) snprintf(opts, sizeof opts, "lowerdir=%s,upperdir=upper%d,workdir=work%d", lower, n, n);
    else snprintf(opts, sizeof opts, "lowerdir=%s,upperdir=%s,workdir=%s", lower, upper, work);
    /* noatime: a read would stamp the host's clock (file times are dsim's). */
    if (mount("overlay", target, "overlay", MS_NOATIME, opts) != 0) mount(lower, target, NULL, MS_BIND, NULL);
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
    for (size_t n = 0; n < w->nlayers; n++) overlay(disk, root, w->layers[n], (int)n);
    /* The run directories' parent looks empty: no run's files, this one's
     * included (its name changes every run), and times that do not move. */
    char runs[600], hide[1200];
    snprintf(runs, sizeof runs, "%s", w->run_dir);
    char *slash = strrchr(runs, '/');
    if (slash) *slash = 0;
    snprintf(hide, sizeof hide, "%s%s", root, runs);
    size_t rl = strlen(runs), nl = strlen(RUNS_DIR);
    if (rl >= nl && !strcmp(runs + rl - nl, RUNS_DIR) &&
        mount("tmpfs", hide, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, "mode=1777,size=4k") == 0) {
        struct timespec epoch[2] = { { (time_t)w->conf->epoch_s, 0 }, { (time_t)w->conf->epoch_s, 0 } };
        utimensat(AT_FDCWD, hide, epoch, 0);
        mount(NULL, hide, NULL, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL);
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
    mount(src, dst, NULL, MS_BIND, NULL);
}

/* Runs in the new namespaces as pid 1, before the command exists. */
static void init_setup(struct world *w, struct machine *m)
{
    sethostname(m->name, strlen(m->name));
    setdomainname("(none)", 6);
    /* Simulated UDP sockets are AF_UNIX datagram sockets: their kernel
     * queue must not be the limit (the simulation keeps UDP's byte limit). */
    int q = open("/proc/sys/net/unix/max_dgram_qlen", O_WRONLY | O_CLOEXEC);
    if (q >= 0) {
        if (write(q, "65536", 5) != 5) {}
        close(q);
    }
    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL);
    struct stat host_root;
    stat("/", &host_root);
    char root[600], src[512], dst[1200];
    disk_setup(w, m, root, sizeof root);
    snprintf(dst, sizeof dst, "%s/proc", root);
    mount("proc", dst, "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL);
    snprintf(dst, sizeof dst, "%s/dev", root);
    mount("/dev", dst, NULL, MS_BIND | MS_REC, NULL);
    snprintf(dst, sizeof dst, "%s/dev/shm", root);          /* POSIX shm: the machine's own */
    mount("tmpfs", dst, "tmpfs", MS_NOSUID | MS_NODEV, "mode=1777");
    snprintf(dst, sizeof dst, "%s/sys", root);
    mount("/sys", dst, NULL, MS_BIND | MS_REC, NULL);
    for (size_t i = 0; i < sizeof vfiles / sizeof *vfiles; i++) {
        snprintf(src, sizeof src, "%s/vfs/%s", w->run_dir, vfiles[i].name);
        snprintf(dst, sizeof dst, "%s%s", root, vfiles[i].target);
        /* Read-only: the files are shared by every machine of the run. */
        if (mount(src, dst, NULL, MS_BIND, NULL) == 0) mount(NULL, dst, NULL, MS_REMOUNT | MS_BIND | MS_RDONLY, NULL);
    }
    /* Uptime moves with virtual time: a file of the machine's own, which the
     * supervisor rewrites whenever the machine opens /proc/uptime. */
    snprintf(src, sizeof src, "%s/vfs/uptime.%s", w->run_dir, m->name);
    close(open(src, O_CREAT | O_WRONLY | O_CLOEXEC, 0444));
    snprintf(dst, sizeof dst, "%s/proc/uptime", root);
    mount(src, dst, NULL, MS_BIND, NULL);
    /* A new UUID at each open, from the machine's entropy (syscalls/info.c). */
    snprintf(src, sizeof src, "%s/vfs/uuid.%s", w->run_dir, m->name);
    close(open(src, O_CREAT | O_WRONLY | O_CLOEXEC, 0444));
    snprintf(dst, sizeof dst, "%s/proc/sys/kernel/random/uuid", root);
    mount(src, dst, NULL, MS_BIND, NULL);
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
    if (chdir(root) != 0 || syscall(SYS_pivot_root, ".", ".dsim-old-root") != 0) _exit(1);
    umount2("/.dsim-old-root", MNT_DETACH);
    rmdir("/.dsim-old-root");
    /* Its making left the root directory with the host's time of now. */
    struct timespec root_times[2] = { host_root.st_mtim, host_root.st_mtim };
    utimensat(AT_FDCWD, "/", root_times, 0);
    if (chdir("/") != 0) _exit(1);
    /* Bring up lo so localhost works; the namespace has no other interface. */
    int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (s >= 0) {
        struct ifreq ifr;
        memset(&ifr, 0, sizeof ifr);
        strcpy(ifr.ifr_name, "lo");
        if (ioctl(s, SIOCGIFFLAGS, &ifr) == 0) {
            ifr.ifr_flags |= IFF_UP | IFF_RUNNING;
            ioctl(s, SIOCSIFFLAGS, &ifr);
        }
        close(s);
    }
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

static void command_exec(struct machine *m, const struct filter_prog *fp, const char *dir, bool tsc_fault,
                         char *const argv[], char *const envp[])
{
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
    dup2(devnull, 0);
    dup2(m->out_fd, 1);
    dup2(m->err_fd, 2);
    /* Nothing of dsim's (the trace file, the caller's fds, the caller's
     * ignored or blocked signals: a shell starts background jobs with
     * SIGINT and SIGQUIT ignored) may reach the machine. */
    syscall(SYS_close_range, 3, ~0U, 0);
    struct { void *handler; unsigned long flags; void *restorer; uint64_t mask; } dfl = { SIG_DFL, 0, 0, 0 };
    for (int sig = 1; sig <= 64; sig++)       /* raw: glibc guards its own 32 and 33 */
        if (sig != SIGKILL && sig != SIGSTOP) syscall(SYS_rt_sigaction, sig, &dfl, NULL, 8);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    umask(022);
    if (chdir(dir) != 0) _exit(126);
    /* Limits are the machine's, every one, not the host's or the caller's:
     * the stack limit shapes the memory layout, programs read and raise the
     * fd limit, and a shell's ulimit prints them all. */
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
    for (size_t i = 0; i < sizeof limits / sizeof *limits; i++) {
        if (setrlimit(limits[i].res, &limits[i].lim) == 0) continue;
        if (limits[i].strict) {          /* never the host's */
            static const char msg[] = "dsim: cannot pin the machine's resource limits (the host's hard limit is lower)\n";
            if (write(2, msg, sizeof msg - 1) < 0) {}
            _exit(126);
        }
        /* The others: as close as the host's hard limit allows. */
        struct rlimit cur;
        if (getrlimit(limits[i].res, &cur) == 0) {
            cur.rlim_cur = cur.rlim_max;
            setrlimit(limits[i].res, &cur);
        }
    }
    setpriority(PRIO_PROCESS, 0, 0);     /* not the caller's nice value */
    personality(ADDR_NO_RANDOMIZE);
    /* rdtsc faults and is answered from virtual time; where it is
     * rewritten instead, a site the rewrite missed must show, not hide. */
    if (tsc_fault) prctl(PR_SET_TSC, PR_TSC_SIGSEGV);
    prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
    struct sock_fprog prog = { (unsigned short)fp->len, fp->insns };
    if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) != 0) _exit(126);
    if (m->conf->argv) exec_in_path(m->conf->argv, envp);
    else execve(argv[0], argv, envp);
    _exit(127);
}

static char **build_env(struct machine *m)
{
    size_t n = sizeof default_env / sizeof *default_env;
    char **env = calloc(n + m->conf->nenv + 2, sizeof *env);
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

/* The devices of the machine's mounts, in mountinfo order (its init makes
 * them in a fixed order), for machine_dev_key. */
static void note_mounts(struct machine *m, pid_t pid)
{
    char path[64], line[4096];
    snprintf(path, sizeof path, "/proc/%d/mountinfo", (int)pid);
    FILE *f = fopen(path, "re");
    m->nmount_devs = 0;
    while (f && fgets(line, sizeof line, f)) {
        unsigned maj, min;
        if (sscanf(line, "%*d %*d %u:%u", &maj, &min) != 2) continue;
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

int machine_start(struct world *w, struct machine *m, const struct filter_prog *fp)
{
    m->proc_dev = 0;            /* a new /proc comes with the new namespace */
    ipc_free(m);                /* and new IPC objects */
    char *command = m->incarnation > 0 && m->conf->command_after_restart ? m->conf->command_after_restart
                                                                         : m->conf->command;
    char *argv[] = { "/bin/sh", "-c", command, NULL };
    char **envp = build_env(m);
    int sync[2];
    if (pipe2(sync, O_CLOEXEC) != 0) { free_env(envp); return -1; }
    pid_t self = getpid();
    long init = syscall(SYS_clone, CLONE_NEWPID | CLONE_NEWNS | CLONE_NEWUTS | CLONE_NEWNET |
                        CLONE_NEWIPC | SIGCHLD, 0, 0, 0, 0);
    if (init == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != 0 && kill(self, 0) != 0) _exit(1);
        setsid();
        char c;
        close(sync[1]);
        if (read(sync[0], &c, 1) != 1) _exit(1);
        init_setup(w, m);
        pid_t cmd = fork();
        if (cmd == 0) command_exec(m, fp, w->conf->dir, !w->tsc_rewrite, argv, envp);
        syscall(SYS_close_range, 0, ~0U, 0);
        for (;;)
            if (wait(NULL) < 0 && errno == ECHILD) _exit(0);
    }
    free_env(envp);
    close(sync[0]);
    if (init < 0) { close(sync[1]); return -1; }
    m->init_pid = (pid_t)init;
    m->init_reaped = false;
    int status;
    if (ptrace(PTRACE_SEIZE, init, 0, TRACE_OPTIONS) != 0 || write(sync[1], "x", 1) != 1) {
        close(sync[1]);
        return -1;
    }
    close(sync[1]);
    /* The watchdog's SIGALRM interrupts these waits (no SA_RESTART). */
    if (waitpid_again((pid_t)init, &status) != init || status >> 8 != (SIGTRAP | (PTRACE_EVENT_FORK << 8)))
        return -1;
    pid_t cmd = (pid_t)tracer_eventmsg((pid_t)init);
    ptrace(PTRACE_DETACH, init, 0, 0);
    if (waitpid_again(cmd, &status) != cmd || !WIFSTOPPED(status))
        return -1;
    note_mounts(m, cmd);
    struct process *p = world_add_process(w, m, cmd, 2);
    p->sh = sighand_new(w);
    struct thread *t = world_add_thread(w, p, cmd, 2);
    t->state = TS_NEW;
    m->main = p;
    m->started = true;
    return 0;
}

void machine_kill(struct world *w, struct machine *m)
{
    if (m->init_pid > 0 && !m->init_reaped) kill(m->init_pid, SIGKILL);
    for (size_t i = 0; i < w->nthreads; i++) {
        struct thread *t = w->threads[i];
        if (t->proc->m == m && t->state != TS_DEAD) {
            kill(t->tid, SIGKILL);
            t->state = TS_DYING;
        }
    }
}
