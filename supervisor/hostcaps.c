#include "supervisor/hostcaps.h"
#include <cpuid.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>
#include <ucontext.h>
#include <asm/prctl.h>

enum probe { P_USERNS };

/* Runs one probe in a child, which may die of it: its wait status. */
static int probe_child(enum probe what)
{
    pid_t pid = fork();
    if (pid < 0) return -1;
    if (pid == 0) {
        switch (what) {
        case P_USERNS:
            _exit(unshare(CLONE_NEWUSER) == 0 ? 0 : 1);
        }
        _exit(0);
    }
    int status;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
    return status;
}

/* The TSC probes run in this thread, not in a child: every dsim process
 * makes them (tsc = auto), and a fork and wait cost milliseconds on a
 * loaded host, more than the rest of `dsim exec /bin/true`'s start. The
 * fault's signal is caught and the armed state undone. */
static sigjmp_buf tsc_jump;
static volatile sig_atomic_t tsc_signal;

static void tsc_caught(int sig)
{
    tsc_signal = sig;
    siglongjmp(tsc_jump, 1);
}

/* The signal rdtsc (or rdtscp) raised with PR_SET_TSC's fault armed, or 0. */
static int tsc_probe(bool rdtscp)
{
    struct sigaction catch = { .sa_handler = tsc_caught }, old_segv, old_ill;
    sigemptyset(&catch.sa_mask);
    sigaction(SIGSEGV, &catch, &old_segv);
    sigaction(SIGILL, &catch, &old_ill);
    tsc_signal = 0;
    if (sigsetjmp(tsc_jump, 1) == 0) {
        unsigned lo, hi, aux;
        prctl(PR_SET_TSC, PR_TSC_SIGSEGV);
        if (rdtscp) __asm__ volatile("rdtscp" : "=a"(lo), "=d"(hi), "=c"(aux));
        else __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
    }
    prctl(PR_SET_TSC, PR_TSC_ENABLE);
    sigaction(SIGSEGV, &old_segv, NULL);
    sigaction(SIGILL, &old_ill, NULL);
    return tsc_signal;
}

/* The facts tsc_resolve needs, probed once. */
static void tsc_facts(struct host_caps *h)
{
    static bool probed;
    if (probed) return;
    probed = true;
    h->rdtsc_faults = tsc_probe(false) == SIGSEGV;
    /* Hypervisors may hide rdtscp from CPUID and still run it: try it. */
    int rdtscp = tsc_probe(true);
    h->has_rdtscp = rdtscp != SIGILL;
    h->rdtscp_faults = rdtscp == SIGSEGV;
}

/* CPUID faulting, tried in this thread (as the TSC's) and undone: run.c
 * asks for every run. Probed once. */
static bool cpuid_fault_probe(void)
{
    static int known = -1;
    if (known >= 0) return known;
    known = syscall(SYS_arch_prctl, ARCH_SET_CPUID, 0) == 0;
    if (known) syscall(SYS_arch_prctl, ARCH_SET_CPUID, 1);
    return known;
}

int cpuid_resolve(enum cpuid_mode mode, enum cpuid_how *how, char *err, size_t errlen)
{
    switch (mode) {
    case CPUID_HOST: *how = CPUID_BY_HOST; return 0;
    case CPUID_REWRITE: *how = CPUID_BY_REWRITE; return 0;
    case CPUID_AUTO: {
        /* DSIM_CPUID_AUTO=trap|rewrite: what auto takes, for a test of
         * the other branch (the probe's otherwise). */
        const char *env = getenv("DSIM_CPUID_AUTO");
        if (env && *env && strcmp(env, "trap") && strcmp(env, "rewrite")) {
            snprintf(err, errlen, "DSIM_CPUID_AUTO=%s: trap or rewrite expected", env);
            return -1;
        }
        bool trap = env && *env ? !strcmp(env, "trap") : cpuid_fault_probe();
        if (trap && !cpuid_fault_probe()) {
            snprintf(err, errlen, "DSIM_CPUID_AUTO=trap, but this host has no CPUID faulting (see dsim doctor)");
            return -1;
        }
        *how = trap ? CPUID_BY_FAULT : CPUID_BY_REWRITE;
        return 0;
    }
    case CPUID_TRAP:
        if (!cpuid_fault_probe()) {
            snprintf(err, errlen, "cpuid = trap, but this host has no CPUID faulting (ARCH_SET_CPUID; see dsim "
                     "doctor); use cpuid = auto or rewrite, or --cpuid rewrite");
            return -1;
        }
        *how = CPUID_BY_FAULT;
        return 0;
    }
    return -1;
}

void vcpu_for_host(struct vcpu *c, unsigned cpus, char *missing, size_t len)
{
    static struct vcpu_mask host;
    static bool read;
    if (!read) {
        unsigned a, b;
        __get_cpuid(1, &a, &b, &host.l1_ecx, &host.l1_edx);
        __get_cpuid(0x80000001, &a, &b, &host.x1_ecx, &host.x1_edx);
        read = true;
    }
    char scratch[8];
    vcpu_init(c, cpus);
    vcpu_mask_host(c, &host, missing ? missing : scratch, missing ? len : sizeof scratch);
}

/* Whether proc takes a pid namespace by fd (fsconfig "pidns", Linux
 * 6.17): tried on this process's own, without mounting anything. Probed
 * once; false without the right to make a file system context (root). */
static bool proc_pidns_probe(void)
{
    static int known = -1;
    if (known >= 0) return known;
    int fs = fsopen("proc", FSOPEN_CLOEXEC), ns = open("/proc/self/ns/pid", O_RDONLY | O_CLOEXEC);
    known = fs >= 0 && ns >= 0 && fsconfig(fs, FSCONFIG_SET_FD, "pidns", NULL, ns) == 0;
    if (fs >= 0) close(fs);
    if (ns >= 0) close(ns);
    return known;
}

int proc_mount_resolve(bool *pidns, char *err, size_t errlen)
{
    const char *how = getenv("DSIM_PROC_MOUNT");
    bool works = proc_pidns_probe();
    if (!how || !*how) {
        *pidns = works;
        return 0;
    }
    if (!strcmp(how, "helper")) {
        *pidns = false;
        return 0;
    }
    if (strcmp(how, "pidns")) {
        snprintf(err, errlen, "DSIM_PROC_MOUNT=%s: pidns or helper expected", how);
        return -1;
    }
    if (!works) {
        snprintf(err, errlen, "DSIM_PROC_MOUNT=pidns, but this kernel's proc takes no pid namespace "
                 "(fsconfig \"pidns\", Linux 6.17; see dsim doctor): unset it or use helper");
        return -1;
    }
    *pidns = true;
    return 0;
}

/* An environment switch of two values: unset or empty is `yes`. */
static int env_switch(const char *name, const char *yes, const char *no, bool *value, char *err, size_t errlen)
{
    const char *how = getenv(name);
    if (!how || !*how || !strcmp(how, yes)) *value = true;
    else if (!strcmp(how, no)) *value = false;
    else {
        snprintf(err, errlen, "%s=%s: %s or %s expected", name, how, yes, no);
        return -1;
    }
    return 0;
}

int netns_reuse_resolve(bool *reuse, char *err, size_t errlen)
{
    return env_switch("DSIM_NETNS", "reuse", "fresh", reuse, err, errlen);
}

int supervisor_tsc_resolve(bool *fault, char *err, size_t errlen)
{
    return env_switch("DSIM_SUPERVISOR_TSC", "fault", "enable", fault, err, errlen);
}

int warm_fds_resolve(bool *host, char *err, size_t errlen)
{
    return env_switch("DSIM_WARM_FDS", "host", "old-host", host, err, errlen);
}

int tcp_writes_resolve(bool *relay, char *err, size_t errlen)
{
    return env_switch("DSIM_TCP_WRITES", "relay", "kernel", relay, err, errlen);
}

int overlay_index_resolve(bool *on, char *err, size_t errlen)
{
    const char *how = getenv("DSIM_OVERLAY_INDEX");
    if (how && *how) return env_switch("DSIM_OVERLAY_INDEX", "on", "off", on, err, errlen);
    char v[8] = "";
    FILE *f = fopen("/sys/module/overlay/parameters/index", "re");
    if (f && !fgets(v, sizeof v, f)) v[0] = 0;
    if (f) fclose(f);
    *on = v[0] == 'Y' || v[0] == 'y' || v[0] == '1';
    return 0;
}

/* dsim's own rdtsc or rdtscp while its fault is armed (a library's, a
 * later glibc's): answered from the host's clock instead of killing the
 * supervisor; its own cpuid, by the CPU with the fault lifted for it. Any
 * other SIGSEGV gets the default action back and faults again: the crash
 * it always was. */
static void own_fault(int sig, siginfo_t *si, void *ctx)
{
    (void)sig;
    greg_t *g = ((ucontext_t *)ctx)->uc_mcontext.gregs;
    const unsigned char *ip = (const unsigned char *)g[REG_RIP];
    bool kernel = si->si_code == SI_KERNEL;
    if (kernel && ip[0] == 0x0f && ip[1] == 0xa2) {
        unsigned a, b, c, d;
        syscall(SYS_arch_prctl, ARCH_SET_CPUID, 1);
        __cpuid_count((unsigned)g[REG_RAX], (unsigned)g[REG_RCX], a, b, c, d);
        syscall(SYS_arch_prctl, ARCH_SET_CPUID, 0);
        g[REG_RAX] = a, g[REG_RBX] = b, g[REG_RCX] = c, g[REG_RDX] = d;
        g[REG_RIP] += 2;
        return;
    }
    int len = !kernel ? 0 : ip[0] == 0x0f && ip[1] == 0x31 ? 2 : ip[0] == 0x0f && ip[1] == 0x01 && ip[2] == 0xf9 ? 3 : 0;
    if (!len) {
        signal(SIGSEGV, SIG_DFL);
        return;
    }
    uint64_t ns = host_clock_ns(CLOCK_MONOTONIC);
    g[REG_RAX] = (greg_t)(uint32_t)ns;
    g[REG_RDX] = (greg_t)(ns >> 32);
    if (len == 3) g[REG_RCX] = 0;
    g[REG_RIP] += len;
}

static void catch_own_faults(void)
{
    static bool caught;
    if (caught) return;
    struct sigaction sa = { .sa_sigaction = own_fault, .sa_flags = SA_SIGINFO };
    sigemptyset(&sa.sa_mask);
    sigaction(SIGSEGV, &sa, NULL);
    caught = true;
}

void supervisor_tsc_fault(bool on)
{
    if (on) catch_own_faults();
    prctl(PR_SET_TSC, on ? PR_TSC_SIGSEGV : PR_TSC_ENABLE);
    /* A test's hook (t_tsc.sh): an rdtsc of dsim's own, armed. */
    if (on && getenv("DSIM_TEST_OWN_RDTSC")) {
        unsigned lo, hi;
        __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
        if (!lo && !hi) fprintf(stderr, "dsim: own rdtsc read 0\n");
    }
}

void supervisor_cpuid_fault(bool on)
{
    if (on) catch_own_faults();
    syscall(SYS_arch_prctl, ARCH_SET_CPUID, on ? 0 : 1);
    /* A test's hook (t_cpuid.sh): a cpuid of dsim's own, armed. */
    if (on && getenv("DSIM_TEST_OWN_CPUID")) {
        unsigned a, b, c, d;
        __cpuid(0, a, b, c, d);
        if (!b) fprintf(stderr, "dsim: own cpuid read 0\n");
    }
}

uint64_t host_clock_ns(clockid_t clock)
{
    struct timespec ts;
    if (syscall(SYS_clock_gettime, clock, &ts) != 0) return 0;
    return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static cpu_set_t started_cpus;
static bool started_cpus_known;

void host_cpus_note(void)
{
    started_cpus_known = sched_getaffinity(0, sizeof started_cpus, &started_cpus) == 0;
}

const cpu_set_t *host_cpus(void) { return started_cpus_known ? &started_cpus : NULL; }

static struct host_caps caps;
static bool succeeded(int status) { return status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 0; }

static bool has_pmu(void)
{
    struct perf_event_attr a;
    memset(&a, 0, sizeof a);
    a.size = sizeof a;
    a.type = PERF_TYPE_HARDWARE;
    a.config = PERF_COUNT_HW_INSTRUCTIONS;
    a.exclude_kernel = 1;
    a.exclude_hv = 1;
    a.disabled = 1;
    int fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
    if (fd < 0) return false;
    close(fd);
    return true;
}

static bool file_has(const char *path, const char *needle)
{
    FILE *f = fopen(path, "re");
    char line[512];
    bool found = false;
    while (f && !found && fgets(line, sizeof line, f)) found = strstr(line, needle) != NULL;
    if (f) fclose(f);
    return found;
}

static void cpu_facts(struct host_caps *h)
{
    unsigned a, b, c, d;
    if (__get_cpuid(1, &a, &b, &c, &d)) h->has_rdrand = c & (1u << 30);
    if (__get_cpuid_count(7, 0, &a, &b, &c, &d)) h->has_rdseed = b & (1u << 18);
    unsigned brand[12] = { 0 };
    if (__get_cpuid(0x80000002, &brand[0], &brand[1], &brand[2], &brand[3]) &&
        __get_cpuid(0x80000003, &brand[4], &brand[5], &brand[6], &brand[7]) &&
        __get_cpuid(0x80000004, &brand[8], &brand[9], &brand[10], &brand[11])) {
        char text[49] = { 0 };
        memcpy(text, brand, 48);
        const char *s = text;
        while (*s == ' ') s++;
        snprintf(h->cpu, sizeof h->cpu, "%s", s);
        for (size_t n = strlen(h->cpu); n > 0 && h->cpu[n - 1] == ' '; n--) h->cpu[n - 1] = 0;
    }
}

const struct host_caps *host_caps(void)
{
    static bool probed;
    struct host_caps *h = &caps;
    tsc_facts(h);
    if (probed) return h;
    probed = true;
    struct utsname u;
    if (uname(&u) == 0) snprintf(h->kernel, sizeof h->kernel, "%s %s", u.sysname, u.release);
    cpu_facts(h);
    h->cpuid_faulting = cpuid_fault_probe();
    h->user_namespaces = succeeded(probe_child(P_USERNS));
    h->pmu = has_pmu();
    h->overlayfs = file_has("/proc/filesystems", "overlay");
    h->vsyscall = file_has("/proc/self/maps", "[vsyscall]");
    h->proc_pidns = proc_pidns_probe();
    int pidfd = (int)syscall(SYS_pidfd_open, getpid(), 0);
    if (pidfd >= 0) {
        int copy = (int)syscall(SYS_pidfd_getfd, pidfd, 0, 0);
        h->pidfd_getfd = copy >= 0;
        if (copy >= 0) close(copy);
        close(pidfd);
    }
    return h;
}

int tsc_resolve(enum tsc_mode mode, bool *rewrite, char *err, size_t errlen)
{
    const struct host_caps *h = &caps;
    tsc_facts(&caps);       /* only these: the rest is dsim doctor's */
    /* Both instructions must fault for the fault path to cover them. */
    bool faults = h->rdtsc_faults && (h->rdtscp_faults || !h->has_rdtscp);
    switch (mode) {
    case TSC_REWRITE: *rewrite = true; return 0;
    case TSC_AUTO: *rewrite = !faults; return 0;
    case TSC_TRAP:
        if (!faults) {
            snprintf(err, errlen, "tsc = trap, but this host's rdtsc does not fault under PR_SET_TSC "
                     "(see dsim doctor); use tsc = auto or rewrite, or --tsc rewrite");
            return -1;
        }
        *rewrite = false;
        return 0;
    }
    return -1;
}
