/* A spike for warm start (issue 14 item 3), not part of dsim: can a
 * machine stopped at a point P (init + one single-threaded command at a
 * seccomp stop) be copied once per seed, with the same pids, its own disk,
 * handed to a forked supervisor, and how much does a copy cost against a
 * cold machine start? A minimal tracer (this process, "the server"), a
 * minimal init and a minimal command (forks of this program, or CPython),
 * in dsim's namespace layout. Run by warm_copy.sh, as root; see
 * docs/design.md "Warm start" for what it found.
 *
 *   warm_copy SCRATCH [--seeds N] [--cold N] [--layout owned|dsim]
 *             [--no-cursor-reset] [--ballast MB] [--unsafe-handoff]
 *             [--show-mountinfo] [--python]
 *
 * --layout dsim: the machine's pid namespace is owned by the host's user
 * namespace, as in dsim today (init host root, the command in a user
 * namespace of its own); the command's clone3 with set_tid fails, and the
 * program stops there. --layout owned (default): the pid namespace is
 * owned by the user namespace of init and the command; the mount, UTS, net
 * and IPC namespaces by the host's.
 * --no-cursor-reset: seeds do not reset the machine's next-pid cursor.
 * --ballast MB: the server grows by MB before P (to time its fork).
 * --unsafe-handoff: first hands one copy over without a stop.
 * --show-mountinfo: the command prints its mountinfo at start-up and in
 * the first seed. --python: the command is CPython (/usr/bin/python3).
 *
 * Everything runs in a private mount namespace of this process (its mounts
 * go with it) on a tmpfs over SCRATCH; every process it starts dies with it
 * (PR_SET_PDEATHSIG, PTRACE_O_EXITKILL, the pid namespaces' inits). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/mount.h>
#include <linux/sched.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MARK 0x5eedUL           /* getpid(MARK) is the point P */
#define HIGH_PID 32000          /* where the template moves out of pid 2 */
enum { LASTPID_FD = 5 };        /* init keeps the machine's ns_last_pid open here */

static const char *scratch;
static int nseeds = 20, ncold = 10, ballast_mb;
static bool owned = true, cursor_reset = true, unsafe_handoff, show_mountinfo, python;
static const long TRACE_OPTS = PTRACE_O_TRACESECCOMP | PTRACE_O_TRACESYSGOOD | PTRACE_O_TRACEFORK |
                               PTRACE_O_TRACECLONE | PTRACE_O_TRACEVFORK | PTRACE_O_EXITKILL;

static void die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "warm_copy: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    exit(1);
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static pid_t wait_for(pid_t pid, int *st)
{
    pid_t r;
    while ((r = waitpid(pid, st, __WALL)) < 0 && errno == EINTR) {}
    return r;
}

static int event_of(int st) { return WIFSTOPPED(st) ? st >> 16 : -1; }

/* ---- the command: what runs in the machine ---- */

static int counter = 42;

static void print_mountinfo(const char *when)
{
    if (!show_mountinfo) return;
    char line[512];
    FILE *m = fopen("/proc/self/mountinfo", "r");
    while (m && fgets(line, sizeof line, m)) printf("  %s mountinfo: %s", when, line);
    if (m) fclose(m);
    fflush(stdout);
}

static void command_main(void)
{
    printf("start-up: pid %d ppid %d\n", getpid(), getppid());
    fflush(stdout);
    int fd = open("/var/tmp/warm_state", O_CREAT | O_WRONLY | O_TRUNC, 0644);
    if (fd < 0 || write(fd, "startup\n", 8) != 8) _exit(3);
    close(fd);
    if (chdir("/var/tmp") != 0) _exit(3);
    print_mountinfo("start-up");
    long seed = syscall(SYS_getpid, MARK);          /* P: the tracer answers with the seed */
    counter++;
    char self[64] = "?", cwd[256] = "?", state[256] = "", root[512] = "?", line[512];
    ssize_t n = readlink("/proc/self", self, sizeof self - 1);
    if (n > 0) self[n] = 0;
    if (!getcwd(cwd, sizeof cwd)) snprintf(cwd, sizeof cwd, "error %d", errno);
    fd = open("warm_state", O_WRONLY | O_APPEND);
    if (fd >= 0) { dprintf(fd, "seed %ld\n", seed); close(fd); }
    fd = open("warm_state", O_RDONLY);
    n = fd >= 0 ? read(fd, state, sizeof state - 1) : -1;
    if (n > 0) state[n] = 0;
    if (fd >= 0) close(fd);
    for (char *c = state; *c; c++) if (*c == '\n') *c = '|';
    int mounts = 0;
    FILE *m = fopen("/proc/self/mountinfo", "r");
    while (m && fgets(line, sizeof line, m)) {
        char mp[256];
        mounts++;
        if (sscanf(line, "%*d %*d %*s %*s %255s", mp) == 1 && !strcmp(mp, "/")) {
            line[strcspn(line, "\n")] = 0;
            snprintf(root, sizeof root, "%s", strchr(line, ' ') + 1);     /* without the mount id */
        }
    }
    if (m) fclose(m);
    print_mountinfo("seed");
    pid_t c = fork();
    if (c == 0) _exit(0);
    waitpid(c, NULL, 0);
    printf("seed %ld: pid %d ppid %d /proc/self %s cwd %s counter %d child %d state '%s' mounts %d root: %s\n",
           seed, getpid(), getppid(), self, cwd, counter, (int)c, state, mounts, root);
    fflush(stdout);
    exit(0);
}

static int self_pidns;

/* The same command in CPython (--python): a real interpreter's start-up
 * is what warm start saves. */
static const char python_command[] =
    "import os, ctypes\n"
    "libc = ctypes.CDLL(None)\n"
    "libc.syscall.restype = ctypes.c_long\n"
    "print(f'start-up: pid {os.getpid()} ppid {os.getppid()}', flush=True)\n"
    "with open('/var/tmp/warm_state', 'w') as f: f.write('startup\\n')\n"
    "os.chdir('/var/tmp')\n"
    "counter = 42\n"
    "seed = libc.syscall(ctypes.c_long(39), ctypes.c_long(0x5eed))\n"
    "counter += 1\n"
    "me, cwd = os.readlink('/proc/self'), os.getcwd()\n"
    "with open('warm_state', 'a') as f: f.write(f'seed {seed}\\n')\n"
    "state = open('warm_state').read().replace('\\n', '|')\n"
    "lines = open('/proc/self/mountinfo').read().splitlines()\n"
    "root = [l.split(' ', 1)[1] for l in lines if l.split()[4] == '/'][0]\n"
    "c = os.fork()\n"
    "if c == 0: os._exit(0)\n"
    "os.waitpid(c, 0)\n"
    "print(f\"seed {seed}: pid {os.getpid()} ppid {os.getppid()} /proc/self {me} cwd {cwd} counter {counter} \"\n"
    "      f\"child {c} state '{state}' mounts {len(lines)} root: {root}\", flush=True)\n";

/* ---- the machine: init and its command ---- */

struct machine {
    pid_t init, cmd;            /* host pids */
    int userns;                 /* (dsim layout) the command's user ns */
    int mntns, pidns;           /* the machine's mount and pid namespaces (from init) */
    int lastpid;                /* the machine's ns_last_pid, open for writing */
    char dir[512];              /* its disk: upper, work, root */
};

static void bind_node(const char *name)
{
    char dst[64], src[64];
    snprintf(dst, sizeof dst, "dev/%s", name);
    snprintf(src, sizeof src, "/dev/%s", name);
    close(open(dst, O_CREAT | O_WRONLY | O_CLOEXEC, 0666));
    mount(src, dst, NULL, MS_BIND, NULL);
}

/* /proc/sys read-only, as in dsim's machines (under the cwd or root). */
static void seal_sys(const char *sys)
{
    mount(sys, sys, NULL, MS_BIND | MS_REC, NULL);
    mount(NULL, sys, NULL, MS_REMOUNT | MS_BIND | MS_RDONLY, NULL);
}

/* The machine's root, by a host-root process in its new mount namespace:
 * an overlay of the host's / (writes to the machine's upper layer), a
 * private /dev, with_proc a /proc of the caller's pid namespace (its
 * ns_last_pid kept open at LASTPID_FD, then /proc/sys sealed); then
 * pivot_root into it. */
static void machine_mounts(const struct machine *m, bool with_proc)
{
    char root[600], opts[2000];
    sethostname("m0", 2);
    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL);
    snprintf(root, sizeof root, "%s/root", m->dir);
    snprintf(opts, sizeof opts, "lowerdir=/,upperdir=%s/upper,workdir=%s/work", m->dir, m->dir);
    if (chdir(m->dir) != 0) _exit(2);
    snprintf(opts, sizeof opts, "lowerdir=/,upperdir=upper,workdir=work");
    if (mount("overlay", root, "overlay", MS_NOATIME, opts) != 0 || chdir(root) != 0) _exit(2);
    if (with_proc) {
        if (mount("proc", "proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) != 0) _exit(3);
        int lp = open("proc/sys/kernel/ns_last_pid", O_WRONLY);
        if (lp < 0 || dup2(lp, LASTPID_FD) < 0) _exit(4);
        if (lp != LASTPID_FD) close(lp);
        seal_sys("proc/sys");
    }
    if (mount("tmpfs", "dev", "tmpfs", MS_NOSUID | MS_NOEXEC, "mode=755,size=1m") != 0) _exit(5);
    bind_node("null");
    bind_node("zero");
    bind_node("urandom");
    mkdir(".old", 0700);
    if (syscall(SYS_pivot_root, ".", ".old") != 0) _exit(6);
    umount2("/.old", MNT_DETACH);
    rmdir("/.old");
    if (chdir("/") != 0) _exit(7);
}

static void command_start(void)
{
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    syscall(SYS_close_range, 3, ~0U, 0);
    prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
    struct sock_filter f[] = { BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRACE) };
    struct sock_fprog prog = { 1, f };
    if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) != 0) _exit(10);
    if (python) {
        char *const argv[] = { "python3", "-c", (char *)python_command, NULL };
        char *const envp[] = { "PATH=/usr/bin:/bin", "LANG=C.UTF-8", "HOME=/root", NULL };
        execve("/usr/bin/python3", argv, envp);
        _exit(11);
    }
    command_main();
}

/* pid 1: waits for the server, forks the command, reaps. */
static void init_main(const struct machine *m, int sync_r, int out, int err)
{
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    char ch;
    if (read(sync_r, &ch, 1) != 1) _exit(1);
    if (!owned) machine_mounts(m, true);
    int devnull = open("/dev/null", O_RDONLY);
    if (devnull < 0 || dup2(devnull, 0) < 0 || dup2(out, 1) < 0 || dup2(err, 2) < 0) _exit(8);
    pid_t cmd = fork();
    if (cmd == 0) {
        /* dsim layout: the command's user namespace (ids mapped to
         * themselves), a child of the host's, which owns the machine's
         * namespaces. owned: init's, which owns the pid namespace. */
        if (!owned && setns(m->userns, CLONE_NEWUSER) != 0) _exit(9);
        command_start();
    }
    for (;;)
        if (waitpid(-1, NULL, __WALL) < 0 && errno == ECHILD) _exit(0);
}

static void write_maps(pid_t pid)
{
    static const char *const maps[] = { "uid_map", "gid_map" };
    char path[64];
    for (int i = 0; i < 2; i++) {
        snprintf(path, sizeof path, "/proc/%d/%s", pid, maps[i]);
        int fd = open(path, O_WRONLY);
        if (fd < 0 || write(fd, "0 0 4294967295\n", 15) != 15) die("%s: %m", path);
        close(fd);
    }
}

/* dsim layout: the command's user namespace, from a helper that unshares
 * it; its fd outlives the helper. */
static int make_userns(void)
{
    int to[2], from[2];
    if (pipe2(to, O_CLOEXEC) || pipe2(from, O_CLOEXEC)) die("pipe: %m");
    pid_t h = fork();
    if (h == 0) {
        char c;
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        close(to[1]);
        if (unshare(CLONE_NEWUSER) != 0 || write(from[1], "u", 1) != 1) _exit(1);
        if (read(to[0], &c, 1) != 0) {}
        _exit(0);
    }
    close(to[0]);
    close(from[1]);
    char c, path[64];
    if (read(from[0], &c, 1) != 1) die("user namespace helper failed");
    write_maps(h);
    snprintf(path, sizeof path, "/proc/%d/ns/user", h);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) die("%s: %m", path);
    close(to[1]);
    wait_for(h, NULL);
    close(from[0]);
    return fd;
}

/* owned layout: a helper (host root) makes the machine's mount, UTS, net
 * and IPC namespaces (the host's user ns owns them) and its root, then
 * enters a new user namespace and makes the pid namespace there (so that
 * user ns owns it), and forks init into it as the server's child
 * (CLONE_PARENT). init, the command and the template are root in that
 * user ns; nobody in it can change the machine's mounts. Returns init's
 * host pid. */
static pid_t owned_init(const struct machine *m, int sync_r, int out, int err)
{
    int to[2], from[2];
    if (pipe2(to, O_CLOEXEC) || pipe2(from, O_CLOEXEC)) die("pipe: %m");
    pid_t h = fork();
    if (h == 0) {
        char c;
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        close(to[1]);
        if (unshare(CLONE_NEWNS | CLONE_NEWUTS | CLONE_NEWNET | CLONE_NEWIPC) != 0) _exit(1);
        machine_mounts(m, false);
        if (unshare(CLONE_NEWUSER) != 0 || write(from[1], "u", 1) != 1) _exit(1);
        if (read(to[0], &c, 1) != 1 || unshare(CLONE_NEWPID) != 0) _exit(1);
        pid_t init = (pid_t)syscall(SYS_clone, CLONE_PARENT, 0, 0, 0, 0);
        if (init == 0) {
            close(from[1]);
            init_main(m, sync_r, out, err);
        }
        _exit(write(from[1], &init, sizeof init) == sizeof init ? 0 : 1);
    }
    close(to[0]);
    close(from[1]);
    char c;
    if (read(from[0], &c, 1) != 1) die("machine helper failed (see %s)", m->dir);
    write_maps(h);
    pid_t init = -1;
    if (write(to[1], "m", 1) != 1 || read(from[0], &init, sizeof init) != sizeof init || init <= 0)
        die("machine helper: no init");
    close(to[1]);
    close(from[0]);
    wait_for(h, NULL);
    return init;
}

/* owned layout: the machine's /proc, of its pid namespace, made here
 * (fsconfig "pidns", Linux 6.17; init cannot mount) and attached in its
 * mount namespace; its ns_last_pid kept open for writing. */
static void owned_proc(struct machine *m)
{
    int fs = (int)syscall(SYS_fsopen, "proc", FSOPEN_CLOEXEC);
    if (fs < 0 || syscall(SYS_fsconfig, fs, FSCONFIG_SET_FD, "pidns", NULL, m->pidns) != 0 ||
        syscall(SYS_fsconfig, fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0) != 0)
        die("proc of the machine's pid ns (fsconfig pidns): %m");
    int mnt = (int)syscall(SYS_fsmount, fs, FSMOUNT_CLOEXEC, MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC);
    if (mnt < 0) die("fsmount proc: %m");
    close(fs);
    m->lastpid = openat(mnt, "sys/kernel/ns_last_pid", O_WRONLY | O_CLOEXEC);
    if (m->lastpid < 0) die("ns_last_pid: %m");
    int host = open("/proc/self/ns/mnt", O_RDONLY | O_CLOEXEC);
    if (setns(m->mntns, CLONE_NEWNS) != 0) die("setns machine mnt: %m");
    if (syscall(SYS_move_mount, mnt, "", AT_FDCWD, "/proc", MOVE_MOUNT_F_EMPTY_PATH) != 0) die("move_mount proc: %m");
    seal_sys("/proc/sys");
    if (setns(host, CLONE_NEWNS) != 0) die("setns back: %m");
    close(host);
    close(mnt);
}

static int ns_fd(pid_t pid, const char *name)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/ns/%s", pid, name);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) die("%s: %m", path);
    return fd;
}

/* Starts a machine; returns with its command stopped at its first seccomp
 * stop (traced by this process). */
enum { C_NS, C_PROC, C_CMD, NCOLD };
static double cold_phase[NCOLD];     /* of the last machine_start */

static void machine_start(struct machine *m, const char *name)
{
    double t0 = now_ms();
    snprintf(m->dir, sizeof m->dir, "%s/%s", scratch, name);
    char path[700];
    mkdir(m->dir, 0755);
    static const char *const sub[] = { "upper", "work", "root" };
    for (int i = 0; i < 3; i++) {
        snprintf(path, sizeof path, "%s/%s", m->dir, sub[i]);
        mkdir(path, 0755);
    }
    snprintf(path, sizeof path, "%s/out", m->dir);
    int out = open(path, O_CREAT | O_WRONLY | O_APPEND, 0644);
    snprintf(path, sizeof path, "%s/err", m->dir);
    int err = open(path, O_CREAT | O_WRONLY | O_APPEND, 0644);
    int sync[2];
    if (pipe2(sync, O_CLOEXEC)) die("pipe: %m");
    m->userns = -1;
    if (owned)
        m->init = owned_init(m, sync[0], out, err);
    else {
        m->userns = make_userns();
        long init = syscall(SYS_clone, CLONE_NEWPID | CLONE_NEWNS | CLONE_NEWUTS | CLONE_NEWNET | CLONE_NEWIPC | SIGCHLD,
                            0, 0, 0, 0);
        if (init == 0) init_main(m, sync[0], out, err);
        if (init < 0) die("clone init: %m");
        m->init = (pid_t)init;
    }
    close(sync[0]);
    close(out);
    close(err);
    m->mntns = ns_fd(m->init, "mnt");
    m->pidns = ns_fd(m->init, "pid");
    cold_phase[C_NS] = now_ms() - t0;
    t0 = now_ms();
    if (owned) owned_proc(m);
    cold_phase[C_PROC] = now_ms() - t0;
    t0 = now_ms();
    int st;
    if (ptrace(PTRACE_SEIZE, m->init, 0, TRACE_OPTS) != 0 || write(sync[1], "x", 1) != 1) die("seize init: %m");
    close(sync[1]);
    if (wait_for(m->init, &st) != m->init || event_of(st) != PTRACE_EVENT_FORK)
        die("init did not fork its command (status %#x)", st);
    unsigned long msg;
    ptrace(PTRACE_GETEVENTMSG, m->init, 0, &msg);
    m->cmd = (pid_t)msg;
    ptrace(PTRACE_DETACH, m->init, 0, 0);
    if (wait_for(m->cmd, &st) != m->cmd || event_of(st) != PTRACE_EVENT_STOP) die("command start %#x", st);
    ptrace(PTRACE_CONT, m->cmd, 0, 0);
    if (wait_for(m->cmd, &st) != m->cmd || event_of(st) != PTRACE_EVENT_SECCOMP)
        die("command's first stop %#x (see %s/err)", st, m->dir);
    cold_phase[C_CMD] = now_ms() - t0;
    if (!owned) {       /* init's ns_last_pid fd, taken */
        int pfd = (int)syscall(SYS_pidfd_open, m->init, 0);
        m->lastpid = pfd < 0 ? -1 : (int)syscall(SYS_pidfd_getfd, pfd, LASTPID_FD, 0);
        if (m->lastpid < 0) die("pidfd_getfd of init's ns_last_pid: %m");
        close(pfd);
    }
}

static void machine_kill(struct machine *m)
{
    kill(m->init, SIGKILL);         /* its pid namespace goes with it */
    int st;
    while (wait_for(m->cmd, &st) == m->cmd && !WIFEXITED(st) && !WIFSIGNALED(st))
        ptrace(PTRACE_CONT, m->cmd, 0, 0);
    wait_for(m->init, &st);
    if (m->userns >= 0) close(m->userns);
    close(m->mntns);
    close(m->pidns);
    close(m->lastpid);
}

/* Runs the command on (every trapped call passed through) to P. */
static int stops_to_mark;

static void run_to_mark(pid_t cmd, struct user_regs_struct *home)
{
    int st;
    for (;;) {
        struct user_regs_struct r;
        ptrace(PTRACE_GETREGS, cmd, 0, &r);
        if (r.orig_rax == SYS_getpid && r.rdi == MARK) { *home = r; return; }
        ptrace(PTRACE_CONT, cmd, 0, 0);
        do {
            stops_to_mark++;
            if (wait_for(cmd, &st) != cmd || !WIFSTOPPED(st)) die("command ended before P (%#x)", st);
            if (event_of(st) != PTRACE_EVENT_SECCOMP)
                ptrace(PTRACE_CONT, cmd, 0, event_of(st) == 0 && WSTOPSIG(st) != SIGTRAP ? WSTOPSIG(st) : 0);
        } while (event_of(st) != PTRACE_EVENT_SECCOMP);
    }
}

/* ---- injecting system calls into a stopped tracee ---- */

struct tracee {
    pid_t pid;
    struct user_regs_struct home;   /* its registers at the seccomp stop of P */
    bool at_seccomp;                /* else about to return to user mode */
};

#define SCRATCH_LEN 512

/* Where injected calls' arguments go: below the red zone of P's stack. */
static unsigned long scratch_addr(const struct tracee *t) { return (t->home.rsp - 128 - SCRATCH_LEN) & ~15UL; }

static void mem_rw(pid_t pid, unsigned long addr, void *buf, size_t len, bool write)
{
    struct iovec local = { buf, len }, remote = { (void *)addr, len };
    ssize_t n = write ? process_vm_writev(pid, &local, 1, &remote, 1, 0)
                      : process_vm_readv(pid, &local, 1, &remote, 1, 0);
    if (n != (ssize_t)len) die("process_vm_%s %d: %m", write ? "writev" : "readv", pid);
}

/* One system call run by the tracee; its result (or -errno). A child it
 * makes (clone) is *child. The tracee ends stopped at the call's exit. */
static long inject(struct tracee *t, long nr, long a0, long a1, long a2, long a3, pid_t *child)
{
    struct user_regs_struct r = t->home;
    int st;
    r.rdi = a0, r.rsi = a1, r.rdx = a2, r.r10 = a3, r.r8 = 0, r.r9 = 0;
    if (t->at_seccomp) {
        /* at the seccomp stop: change the pending call; the kernel checks
         * the filter again (RET_TRACE then means allow) and runs it */
        r.orig_rax = nr;
        ptrace(PTRACE_SETREGS, t->pid, 0, &r);
    } else {
        /* back to the syscall instruction, which stops at seccomp again */
        r.rip = t->home.rip - 2, r.rax = nr, r.orig_rax = -1;
        ptrace(PTRACE_SETREGS, t->pid, 0, &r);
        ptrace(PTRACE_CONT, t->pid, 0, 0);
        if (wait_for(t->pid, &st) != t->pid || event_of(st) != PTRACE_EVENT_SECCOMP)
            die("injected call %ld: no seccomp stop (%#x)", nr, st);
    }
    ptrace(PTRACE_SYSCALL, t->pid, 0, 0);
    for (;;) {
        if (wait_for(t->pid, &st) != t->pid || !WIFSTOPPED(st)) die("injected call %ld: tracee gone (%#x)", nr, st);
        if (WSTOPSIG(st) == (SIGTRAP | 0x80)) break;
        int ev = event_of(st);
        if (ev == PTRACE_EVENT_CLONE || ev == PTRACE_EVENT_FORK || ev == PTRACE_EVENT_VFORK) {
            unsigned long msg;
            ptrace(PTRACE_GETEVENTMSG, t->pid, 0, &msg);
            if (child) *child = (pid_t)msg;
        } else
            fprintf(stderr, "warm_copy: injected call %ld: stop %#x ignored\n", nr, st);
        ptrace(PTRACE_SYSCALL, t->pid, 0, 0);
    }
    ptrace(PTRACE_GETREGS, t->pid, 0, &r);
    t->at_seccomp = false;
    return (long)r.rax;
}

static long inject_path(struct tracee *t, long nr, const char *path, long a1, long a2, bool at)
{
    unsigned long buf = scratch_addr(t) + 128;
    mem_rw(t->pid, buf, (void *)path, strlen(path) + 1, true);
    return at ? inject(t, nr, AT_FDCWD, (long)buf, a1, a2, NULL) : inject(t, nr, (long)buf, a1, a2, 0, NULL);
}

/* Registers back as at P, the call's instruction to be run again: when
 * resumed, the tracee stops at the same seccomp stop of the same call. */
static void park(struct tracee *t)
{
    struct user_regs_struct r = t->home;
    r.rip -= 2, r.rax = t->home.orig_rax, r.orig_rax = -1;
    ptrace(PTRACE_SETREGS, t->pid, 0, &r);
    t->at_seccomp = false;
}

/* A copy of t by an injected clone3 (CLONE_PARENT: the copy is init's
 * child; set_tid: its pid in the machine, if nonzero). The copy, traced by
 * this process, waits at its first stop; its scratch bytes are put back.
 * Its host pid, or -errno. */
static long copy_of(struct tracee *t, pid_t set_tid, struct tracee *copy)
{
    unsigned long base = scratch_addr(t);
    char saved[SCRATCH_LEN];
    mem_rw(t->pid, base, saved, sizeof saved, false);
    struct clone_args ca;
    memset(&ca, 0, sizeof ca);
    ca.flags = CLONE_PARENT;                /* exit_signal 0: the parent's leader's */
    pid_t tid = set_tid;
    if (set_tid) {
        ca.set_tid = base + 96;
        ca.set_tid_size = 1;
        mem_rw(t->pid, base + 96, &tid, sizeof tid, true);
    }
    mem_rw(t->pid, base, &ca, sizeof ca, true);
    pid_t child = 0;
    long r = inject(t, SYS_clone3, (long)base, sizeof ca, 0, 0, &child);
    mem_rw(t->pid, base, saved, sizeof saved, true);
    if (r < 0) return r;
    int st;
    if (wait_for(child, &st) != child || event_of(st) != PTRACE_EVENT_STOP) die("copy's first stop %#x", st);
    mem_rw(child, base, saved, sizeof saved, true);
    copy->pid = child;
    copy->home = t->home;
    copy->at_seccomp = false;
    return child;
}

/* ---- the machine's next-pid cursor ---- */

/* ns_last_pid is per the writer's pid namespace: a vfork()ed helper in the
 * machine's pid ns (host root) writes it through init's fd. */
static void reset_cursor(struct machine *m, int last)
{
    if (setns(m->pidns, CLONE_NEWPID) != 0) die("setns machine pid ns: %m");
    char b[16];
    int n = snprintf(b, sizeof b, "%d", last);
    pid_t h = vfork();
    if (h == 0) _exit(pwrite(m->lastpid, b, (size_t)n, 0) == n ? 0 : 1);
    int st;
    wait_for(h, &st);
    if (setns(self_pidns, CLONE_NEWPID) != 0) die("setns back: %m");
    if (!WIFEXITED(st) || WEXITSTATUS(st)) die("writing ns_last_pid failed");
}

/* ---- a disk per seed ---- */

struct seed_disk { int tmpfs, overlay; };

static int fs_mount(const char *type, const char *const kv[][2], int nkv, unsigned attrs)
{
    int fs = (int)syscall(SYS_fsopen, type, FSOPEN_CLOEXEC);
    if (fs < 0) die("fsopen %s: %m", type);
    for (int i = 0; i < nkv; i++)
        if (syscall(SYS_fsconfig, fs, FSCONFIG_SET_STRING, kv[i][0], kv[i][1], 0) != 0)
            die("fsconfig %s %s=%s: %m", type, kv[i][0], kv[i][1]);
    if (syscall(SYS_fsconfig, fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0) != 0) die("fsconfig create %s: %m", type);
    int mnt = (int)syscall(SYS_fsmount, fs, FSMOUNT_CLOEXEC, attrs);
    if (mnt < 0) die("fsmount %s: %m", type);
    close(fs);
    return mnt;
}

/* The seed's tmpfs (upper, work, the seed's stdout and stderr) and its
 * overlay (lower: the template's upper at P, then the base), both made
 * here, detached, then attached at /tmp and /tmp/root in the machine's
 * mount namespace, with /proc and /dev bound under the new root. */
static void seed_disk_make(struct machine *m, const char *snap, struct seed_disk *d)
{
    static const char *const tkv[][2] = { { "size", "64m" }, { "mode", "0755" } };
    d->tmpfs = fs_mount("tmpfs", tkv, 2, 0);
    static const char *const names[] = { "upper", "work", "root" };
    for (int i = 0; i < 3; i++) mkdirat(d->tmpfs, names[i], 0755);
    close(openat(d->tmpfs, "out", O_CREAT | O_WRONLY | O_CLOEXEC, 0644));
    close(openat(d->tmpfs, "err", O_CREAT | O_WRONLY | O_CLOEXEC, 0644));
    /* Upper and work relative to the seed's tmpfs, as dsim gives them
     * (mountinfo shows the options as given). */
    char lower[700];
    snprintf(lower, sizeof lower, "%s:/", snap);
    const char *const okv[][2] = { { "source", "overlay" }, { "lowerdir", lower }, { "upperdir", "upper" },
                                   { "workdir", "work" } };
    int cwd = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fchdir(d->tmpfs) != 0) die("fchdir: %m");
    d->overlay = fs_mount("overlay", okv, 4, MOUNT_ATTR_NOATIME);
    if (fchdir(cwd) != 0) die("fchdir: %m");
    close(cwd);
    int host = open("/proc/self/ns/mnt", O_RDONLY | O_CLOEXEC);
    if (setns(m->mntns, CLONE_NEWNS) != 0) die("setns machine mnt: %m");
    if (syscall(SYS_move_mount, d->tmpfs, "", AT_FDCWD, "/tmp", MOVE_MOUNT_F_EMPTY_PATH) != 0) die("move_mount tmpfs: %m");
    if (syscall(SYS_move_mount, d->overlay, "", AT_FDCWD, "/tmp/root", MOVE_MOUNT_F_EMPTY_PATH) != 0)
        die("move_mount overlay: %m");
    /* in the order the machine's own were made, as its mountinfo lists them */
    static const char *const binds[2][2] = { { "/proc", "/tmp/root/proc" }, { "/dev", "/tmp/root/dev" } };
    for (int i = 0; i < 2; i++) {
        int k = owned ? 1 - i : i;
        if (mount(binds[k][0], binds[k][1], NULL, MS_BIND | MS_REC, NULL) != 0) die("bind %s: %m", binds[k][0]);
    }
    if (setns(host, CLONE_NEWNS) != 0) die("setns back: %m");
    close(host);
}

static void seed_disk_drop(struct machine *m, struct seed_disk *d)
{
    int host = open("/proc/self/ns/mnt", O_RDONLY | O_CLOEXEC);
    if (setns(m->mntns, CLONE_NEWNS) != 0) die("setns machine mnt: %m");
    if (umount2("/tmp", MNT_DETACH) != 0) die("umount seed disk: %m");
    if (setns(host, CLONE_NEWNS) != 0) die("setns back: %m");
    close(host);
    close(d->overlay);
    close(d->tmpfs);
}

/* The copy moves into its disk and gets the seed's stdout and stderr:
 * injected calls, before it runs. */
static void copy_enter_disk(struct tracee *c, const char *cwd)
{
    unsigned long base = scratch_addr(c);
    char saved[SCRATCH_LEN];
    mem_rw(c->pid, base, saved, sizeof saved, false);
    long r[6];
    r[0] = inject(c, SYS_close, 1, 0, 0, 0, NULL);
    r[1] = inject_path(c, SYS_openat, "/tmp/out", O_WRONLY | O_APPEND, 0, true);
    r[2] = inject(c, SYS_close, 2, 0, 0, 0, NULL);
    r[3] = inject_path(c, SYS_openat, "/tmp/err", O_WRONLY | O_APPEND, 0, true);
    r[4] = inject_path(c, SYS_chroot, "/tmp/root", 0, 0, false);
    r[5] = inject_path(c, SYS_chdir, cwd, 0, 0, false);      /* from the new root */
    if (r[0] || r[1] != 1 || r[2] || r[3] != 2 || r[4] || r[5])
        die("copy's disk: close %ld open %ld close %ld open %ld chroot %ld chdir %ld", r[0], r[1], r[2], r[3], r[4],
            r[5]);
    mem_rw(c->pid, base, saved, sizeof saved, true);
}

/* ---- handing a copy over to a forked supervisor ---- */

/* Leaves the copy stopped and untraced: SIGSTOP, resumed into its
 * signal-delivery-stop, detached with SIGSTOP (a group stop). */
static void hand_off(struct tracee *c)
{
    int st;
    kill(c->pid, SIGSTOP);
    ptrace(PTRACE_CONT, c->pid, 0, 0);
    if (wait_for(c->pid, &st) != c->pid || !WIFSTOPPED(st) || WSTOPSIG(st) != SIGSTOP || event_of(st) != 0)
        die("copy: no signal-delivery-stop for SIGSTOP (%#x)", st);
    if (ptrace(PTRACE_DETACH, c->pid, 0, SIGSTOP) != 0) die("detach copy: %m");
}

struct seed_report {
    double started;             /* this supervisor's first instruction */
    double ready;               /* the copy at its seccomp stop, traced here */
    int seize_status, stop_status;
    int cont_status[3];         /* what the SIGCONT that ends the group stop shows */
    int regs_differ;            /* registers that differ from the template's at P */
    char regs_which[128];
    int exit_status;
};

static const char *const reg_names[] = { "r15", "r14", "r13", "r12", "rbp", "rbx", "r11", "r10", "r9", "r8", "rax",
                                         "rcx", "rdx", "rsi", "rdi", "orig_rax", "rip", "cs", "eflags", "rsp", "ss",
                                         "fs_base", "gs_base", "ds", "es", "fs", "gs" };

/* The forked supervisor of one seed: takes the copy, brings it to the
 * seccomp stop of P, answers P with the seed, passes every call through. */
static void seed_supervisor(pid_t copy, const struct user_regs_struct *home, long seed, int report_fd)
{
    struct seed_report rep;
    memset(&rep, 0, sizeof rep);
    rep.started = now_ms();
    int st;
    if (ptrace(PTRACE_SEIZE, copy, 0, TRACE_OPTS) != 0) _exit(20);
    wait_for(copy, &rep.seize_status);
    /* The copy is in a group stop (SIGNAL_STOP_STOPPED, which a later
     * detach would return it to, and which makes a later SIGCONT notify
     * init): a SIGCONT ends it. Its stops are passed over, the signal
     * itself suppressed, until the seccomp stop of P. */
    kill(copy, SIGCONT);
    ptrace(PTRACE_CONT, copy, 0, 0);
    for (int i = 0;; i++) {
        wait_for(copy, &st);
        if (i < 3) rep.cont_status[i] = st;
        if (event_of(st) == PTRACE_EVENT_SECCOMP || !WIFSTOPPED(st) || i > 5) break;
        ptrace(PTRACE_CONT, copy, 0, 0);
    }
    rep.stop_status = st;
    rep.ready = now_ms();
    if (event_of(rep.stop_status) != PTRACE_EVENT_SECCOMP) _exit(21);
    struct user_regs_struct r;
    ptrace(PTRACE_GETREGS, copy, 0, &r);
    const unsigned long long *a = (const void *)&r, *b = (const void *)home;
    for (size_t i = 0; i < sizeof r / sizeof *a; i++)
        if (a[i] != b[i]) {
            rep.regs_differ++;
            size_t l = strlen(rep.regs_which);
            snprintf(rep.regs_which + l, sizeof rep.regs_which - l, "%s ", reg_names[i]);
        }
    r.orig_rax = -1, r.rax = seed;          /* P answered: the seed's streams start here */
    ptrace(PTRACE_SETREGS, copy, 0, &r);
    ptrace(PTRACE_CONT, copy, 0, 0);
    for (;;) {
        pid_t p = wait_for(-1, &st);
        if (p < 0) break;
        if (p == copy && (WIFEXITED(st) || WIFSIGNALED(st))) { rep.exit_status = st; break; }
        if (!WIFSTOPPED(st)) continue;
        int ev = event_of(st), sig = ev == 0 && WSTOPSIG(st) != SIGTRAP ? WSTOPSIG(st) : 0;
        ptrace(PTRACE_CONT, p, 0, sig);
    }
    if (write(report_fd, &rep, sizeof rep) != sizeof rep) _exit(22);
    _exit(0);
}

/* ---- measurements ---- */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n ? (n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2) : 0;
}

static void memory_line(const char *who, pid_t pid)
{
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%d/smaps_rollup", pid);
    FILE *f = fopen(path, "r");
    long rss = -1, pss = -1;
    while (f && fgets(line, sizeof line, f)) {
        sscanf(line, "Rss: %ld kB", &rss);
        sscanf(line, "Pss: %ld kB", &pss);
    }
    if (f) fclose(f);
    printf("  memory %-22s Rss %6ld kB  Pss %6ld kB\n", who, rss, pss);
}

static void read_file(int dirfd, const char *name, char *buf, size_t len)
{
    int fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC);
    ssize_t n = fd >= 0 ? read(fd, buf, len - 1) : -1;
    buf[n > 0 ? n : 0] = 0;
    if (fd >= 0) close(fd);
}

#define MAX_COLD 1000
static double cold[MAX_COLD], coldp[NCOLD][MAX_COLD];

/* A cold start: a machine to its command's first seccomp stop, killed. */
static void cold_once(int i)
{
    struct machine m;
    char name[32];
    snprintf(name, sizeof name, "cold%d", i);
    double t0 = now_ms();
    machine_start(&m, name);
    cold[i] = now_ms() - t0;
    for (int p = 0; p < NCOLD; p++) coldp[p][i] = cold_phase[p];
    machine_kill(&m);
}

static double cold_summary(void)
{
    double med = median(cold, ncold);
    printf("cold start (namespaces, overlay, /proc, /dev, pivot_root, command in its user ns, to its first "
           "seccomp stop): median %.3f ms of %d\n", med, ncold);
    const char *const cname[] = { owned ? "helper: namespaces, mounts, pivot, user+pid ns, init"
                                        : "user ns helper, clone init (new namespaces)",
                                  owned ? "the machine's /proc (fsconfig pidns), sealed" : "-",
                                  owned ? "command forked, to its first seccomp stop"
                                        : "init's mounts, command forked, to its first stop" };
    for (int p = 0; p < NCOLD; p++) printf("  %-55s %8.3f\n", cname[p], median(coldp[p], ncold));
    return med;
}

int main(int argc, char **argv)
{
    if (argc < 2) die("usage: warm_copy SCRATCH [--seeds N] [--cold N] [--layout owned|dsim] [--no-cursor-reset] [--ballast MB]");
    scratch = argv[1];
    for (int i = 2; i < argc; i++) {
        if (!strcmp(argv[i], "--seeds") && i + 1 < argc) nseeds = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--cold") && i + 1 < argc) ncold = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--ballast") && i + 1 < argc) ballast_mb = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--layout") && i + 1 < argc) owned = !strcmp(argv[++i], "owned");
        else if (!strcmp(argv[i], "--no-cursor-reset")) cursor_reset = false;
        else if (!strcmp(argv[i], "--unsafe-handoff")) unsafe_handoff = true;
        else if (!strcmp(argv[i], "--show-mountinfo")) show_mountinfo = true;
        else if (!strcmp(argv[i], "--python")) python = true;
        else die("unknown argument %s", argv[i]);
    }
    if (geteuid() != 0) die("run as root");
    setvbuf(stdout, NULL, _IOLBF, 0);
    /* Our mounts live in a namespace of our own: they go when we do. */
    if (unshare(CLONE_NEWNS) != 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0) die("unshare mnt: %m");
    if (mount("tmpfs", scratch, "tmpfs", 0, "size=256m,mode=755") != 0) die("tmpfs on %s: %m", scratch);
    self_pidns = open("/proc/self/ns/pid", O_RDONLY | O_CLOEXEC);
    printf("layout: %s\n", owned ? "owned (the command's user ns owns the machine's pid ns)"
                                 : "dsim (the host's user ns owns the machine's pid ns)");

    if (ncold > MAX_COLD) ncold = MAX_COLD;
    /* dsim's layout stops at P: its cold starts come first. Else they
     * alternate with the copies, so that the host's load weighs on both. */
    if (!owned)
        for (int i = 0; i < ncold; i++) cold_once(i);

    struct machine m;
    machine_start(&m, "warm");
    if (ballast_mb > 0) {       /* a supervisor of dsim's size, to fork */
        char *b = malloc((size_t)ballast_mb << 20);
        if (!b) die("ballast");
        memset(b, 1, (size_t)ballast_mb << 20);
    }
    struct tracee t = { m.cmd, {0}, true };
    double tp = now_ms();
    run_to_mark(m.cmd, &t.home);
    double startup_ms = now_ms() - tp;
    printf("P reached %.3f ms after the first stop (%s's start-up, %d stops, every call passed through)\n",
           startup_ms, python ? "CPython" : "the C command", stops_to_mark);

    /* Q2: the template leaves pid 2 for a high pid, init its parent. */
    struct tracee tt;
    long r = copy_of(&t, HIGH_PID, &tt);
    if (r < 0) {
        printf("Q2: clone3(CLONE_PARENT, set_tid={%d}) injected into the command: %s (errno %ld)\n", HIGH_PID,
               strerror((int)-r), -r);
        r = copy_of(&t, 0, &tt);
        if (r < 0) die("even a clone3 without set_tid failed: %s", strerror((int)-r));
        char path[64], line[256];
        snprintf(path, sizeof path, "/proc/%ld/status", r);
        FILE *f = fopen(path, "r");
        while (f && fgets(line, sizeof line, f))
            if (!strncmp(line, "NSpid:", 6) || !strncmp(line, "PPid:", 5)) printf("    without set_tid: %s", line);
        if (f) fclose(f);
        kill(tt.pid, SIGKILL);
        int st;
        wait_for(tt.pid, &st);
        kill(t.pid, SIGKILL);
        while (wait_for(t.pid, &st) == t.pid && !WIFEXITED(st) && !WIFSIGNALED(st)) ptrace(PTRACE_CONT, t.pid, 0, 0);
        machine_kill(&m);
        cold_summary();
        printf("layout dsim: no set_tid; stopping here\n");
        return 0;
    }
    kill(t.pid, SIGKILL);               /* the original; init reaps it, pid 2 is free */
    int st;
    while (wait_for(t.pid, &st) == t.pid && !WIFEXITED(st) && !WIFSIGNALED(st)) ptrace(PTRACE_CONT, t.pid, 0, 0);
    printf("Q2: template moved out of pid 2: clone3(CLONE_PARENT, set_tid={%d}) -> host pid %ld\n", HIGH_PID, r);

    /* The disk at P, frozen: a copy of the template's upper layer. */
    char cmdline[1400], snap[600], cwd[256];
    snprintf(snap, sizeof snap, "%s/snap", scratch);
    double ts = now_ms();
    /* Not the upper itself as a lower: overlayfs would log "lowerdir is
     * in-use as upperdir/workdir of another mount" in the host's kernel
     * log at every seed. */
    snprintf(cmdline, sizeof cmdline, "cp -a %s/upper %s", m.dir, snap);
    if (system(cmdline) != 0) die("%s failed", cmdline);
    printf("template's upper layer frozen (cp -a, once per sweep): %.3f ms\n", now_ms() - ts);
    {
        /* its cwd as the machine sees it: read from the machine's root */
        char path[64];
        snprintf(path, sizeof path, "/proc/%d", tt.pid);
        int dir = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        int host = open("/proc/self/ns/mnt", O_RDONLY | O_CLOEXEC);
        if (dir < 0 || setns(m.mntns, CLONE_NEWNS) != 0) die("setns: %m");
        ssize_t n = readlinkat(dir, "cwd", cwd, sizeof cwd - 1);
        cwd[n > 0 ? n : 0] = 0;
        close(dir);
        if (setns(host, CLONE_NEWNS) != 0) die("setns: %m");
        close(host);
    }
    int last = 2;           /* the last pid the cursor gave before P: the command's */

    enum { CURSOR, DISK, CLONE, ENTER, HANDOFF, FORK, SEIZE, TOTAL, TEARDOWN, NPHASE };
    static const char *const phase[] = { "reset next-pid cursor", "seed disk: tmpfs+overlay+binds",
                                         "clone3 into pid 2", "copy: 6 injected calls (fds, chroot, cwd)",
                                         "hand off (SIGSTOP, detach)", "fork the seed's supervisor, until it runs",
                                         "its SEIZE to the seccomp stop", "per copy, total", "teardown (umount)" };
    double (*ph)[NPHASE] = calloc((size_t)nseeds, sizeof *ph);
    int ok = 0, eexist = 0;
    char first[1024] = "";
    if (unsafe_handoff) {
        /* What a copy does if detached without a stop: runs untraced. */
        struct tracee c;
        while ((r = copy_of(&tt, 2, &c)) == -EEXIST) sched_yield();
        if (r < 0) die("clone3: %s", strerror((int)-r));
        park(&c);
        ptrace(PTRACE_DETACH, c.pid, 0, 0);
        char path[64], line[256], state[256] = "gone (reaped by init)";
        usleep(200000);
        snprintf(path, sizeof path, "/proc/%d/status", c.pid);
        FILE *f = fopen(path, "r");
        while (f && fgets(line, sizeof line, f))
            if (!strncmp(line, "State:", 6)) snprintf(state, sizeof state, "%s", line + 7);
        if (f) fclose(f);
        printf("Q3: a copy detached without SIGSTOP ran untraced; 200 ms later it is %s", state);
        printf("%s", strchr(state, '\n') ? "" : "\n");
        kill(c.pid, SIGKILL);
        usleep(20000);
    }
    for (int s = 0; s < nseeds; s++) {
        if (s < ncold) cold_once(s);
        double t0 = now_ms(), t1;
        if (cursor_reset) reset_cursor(&m, last);
        ph[s][CURSOR] = (t1 = now_ms()) - t0;
        struct seed_disk d;
        seed_disk_make(&m, snap, &d);
        ph[s][DISK] = now_ms() - t1, t1 = now_ms();
        struct tracee c;
        while ((r = copy_of(&tt, 2, &c)) == -EEXIST) { eexist++; sched_yield(); }   /* pid 2 not reaped yet */
        if (r < 0) die("clone3 set_tid={2}: %s", strerror((int)-r));
        ph[s][CLONE] = now_ms() - t1, t1 = now_ms();
        copy_enter_disk(&c, cwd);
        park(&c);
        ph[s][ENTER] = now_ms() - t1, t1 = now_ms();
        hand_off(&c);
        ph[s][HANDOFF] = now_ms() - t1, t1 = now_ms();
        int rep_pipe[2];
        if (pipe2(rep_pipe, O_CLOEXEC)) die("pipe: %m");
        pid_t sup = fork();
        if (sup == 0) seed_supervisor(c.pid, &tt.home, 1000 + s, rep_pipe[1]);
        close(rep_pipe[1]);
        struct seed_report rep;
        ssize_t n = read(rep_pipe[0], &rep, sizeof rep);
        close(rep_pipe[0]);
        wait_for(sup, &st);
        if (n != sizeof rep) die("seed %d: its supervisor failed (%#x)", s, st);
        ph[s][FORK] = rep.started - t1;         /* until the child runs */
        ph[s][SEIZE] = rep.ready - rep.started;
        ph[s][TOTAL] = rep.ready - t0;
        if (s == 0) {
            printf("Q3: the seed's supervisor after PTRACE_SEIZE: waitpid status %#x (stopped %d, sig %d, event %d); "
                   "at last: %#x (event %d = PTRACE_EVENT_SECCOMP)\n", rep.seize_status,
                   WIFSTOPPED(rep.seize_status), WSTOPSIG(rep.seize_status), event_of(rep.seize_status),
                   rep.stop_status, event_of(rep.stop_status));
            printf("Q3: then SIGCONT and PTRACE_CONT until the seccomp stop:");
            for (int i = 0; i < 3 && rep.cont_status[i]; i++)
                printf(" %#x (sig %d, event %d)", rep.cont_status[i], WSTOPSIG(rep.cont_status[i]),
                       event_of(rep.cont_status[i]));
            printf("\n");
            printf("Q1: registers at the copy's seccomp stop against the template's at P: %d differ %s\n",
                   rep.regs_differ, rep.regs_which);
        }
        char out[8192], err[512];
        read_file(d.tmpfs, "out", out, sizeof out);
        read_file(d.tmpfs, "err", err, sizeof err);
        t1 = now_ms();
        seed_disk_drop(&m, &d);
        ph[s][TEARDOWN] = now_ms() - t1;
        /* What every seed must print, but its number. */
        if (s == 0 && show_mountinfo) {
            char tout[4096];
            int dir = open(m.dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
            read_file(dir, "out", tout, sizeof tout);
            close(dir);
            printf("the template's stdout at P:\n%sseed 1000's stdout:\n%s", tout, out);
        }
        char *line = strstr(out, "seed 1");
        if (line) line[strcspn(line, "\n")] = 0;
        if (s == 0 && line) snprintf(first, sizeof first, "%s", line);
        char want[512];
        snprintf(want, sizeof want, "seed %d: pid 2 ppid 1 /proc/self 2 cwd %s counter 43 child 3 state 'startup|seed %d|'",
                 1000 + s, cwd, 1000 + s);
        if (line && !strncmp(line, want, strlen(want)) && !err[0] && WIFEXITED(rep.exit_status) &&
            WEXITSTATUS(rep.exit_status) == 0)
            ok++;
        else if (s < 3 || !cursor_reset)
            printf("  seed %d differs: %s%s\n", 1000 + s, line ? line : out, err);
    }
    for (int i = nseeds; i < ncold; i++) cold_once(i);
    double cold_ms = cold_summary();
    printf("copies: first seed printed: %s\n", first);
    printf("copies as expected (pid 2, ppid 1, /proc/self 2, cwd, COW counter 43, child pid 3, own disk): "
           "%d of %d (clone3 retried on EEXIST %d times)\n", ok, nseeds, eexist);
    printf("per copy, of %d seeds (ms):                       median   lowest\n", nseeds);
    for (int p = 0; p < NPHASE; p++) {
        double v[nseeds];
        for (int s = 0; s < nseeds; s++) v[s] = ph[s][p];
        double med = median(v, nseeds);
        printf("  %-45s %8.3f %8.3f\n", phase[p], med, v[0]);
    }
    double v[nseeds];
    for (int s = 0; s < nseeds; s++) v[s] = ph[s][TOTAL];
    double warm_ms = median(v, nseeds), warm_low = v[0];
    printf("RESULT cold %.3f ms, warm copy %.3f ms: copy/cold = %.3f (%.1fx cheaper); lowest: cold %.3f, copy %.3f\n",
           cold_ms, warm_ms, warm_ms / cold_ms, cold_ms / warm_ms, cold[0], warm_low);
    printf("RESULT with the start-up: cold start + start-up to P %.3f ms, warm copy %.3f ms: ratio %.3f (%.1fx)\n",
           cold_ms + startup_ms, warm_ms, warm_ms / (cold_ms + startup_ms), (cold_ms + startup_ms) / warm_ms);
    printf("template server's memory:\n");
    memory_line("server (this process)", getpid());
    memory_line("machine's init", m.init);
    memory_line("template command", tt.pid);
    kill(tt.pid, SIGKILL);
    while (wait_for(tt.pid, &st) == tt.pid && !WIFEXITED(st) && !WIFSIGNALED(st)) ptrace(PTRACE_CONT, tt.pid, 0, 0);
    machine_kill(&m);
    return ok == nseeds ? 0 : 1;
}
