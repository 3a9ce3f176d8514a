/* `dsim doctor`: what this host can do, what dsim does about each fact,
 * and what it means for determinism (rr's start-up checks are the model).
 * A seed replays on any host; how dsim gets there differs. */
#include "cli/cli.h"
#include "supervisor/hostcaps.h"
#include "supervisor/snapfds.h"
#include "supervisor/snappipes.h"
#include <stdio.h>

struct fact { const char *what; bool yes; const char *if_yes, *if_no; bool required; };

int cmd_doctor(int argc, char **argv)
{
    if (argc > 1) return usage_error("unexpected argument %s", argv[1]);
    const struct host_caps *h = host_caps();
    const struct fact facts[] = {
        { "rdtsc faults under PR_SET_TSC", h->rdtsc_faults,
          "rdtsc reads virtual time through its fault (tsc = auto uses trap)",
          "rdtsc is rewritten in machine code (tsc = auto uses rewrite; tsc = trap is refused)", false },
        { "rdtscp faults under PR_SET_TSC", h->rdtscp_faults || !h->has_rdtscp,
          h->has_rdtscp ? "likewise rdtscp" : "the CPU has no rdtscp",
          "rdtscp is rewritten in machine code", false },
        { "rdrand/rdseed (CPUID)", h->has_rdrand || h->has_rdseed,
          "never trappable: rewritten in machine code on every host, answered from the machine's entropy",
          "the CPU lacks them; code that uses them anyway is rewritten like elsewhere", false },
        { "CPUID faulting", h->cpuid_faulting,
          "cpuid tells dsim's virtual CPU through its fault (cpuid = auto uses trap)",
          "cpuid is rewritten in machine code to tell dsim's virtual CPU (cpuid = auto uses rewrite; "
          "cpuid = trap is refused)", false },
        { "hardware performance counters (PMU)", h->pmu,
          "present, not used yet: threads are still preempted only at system calls",
          "threads are preempted only at system calls (no races between two memory accesses)", false },
        { "seccomp, ptrace and pidfd_getfd", h->pidfd_getfd,
          "syscalls are trapped and fds copied from tracees", "dsim cannot run here (Linux 5.6 or later needed)", true },
        { "overlayfs", h->overlayfs, "each machine's disk is an overlay of the host's files",
          "machines would write the host's files: dsim cannot run here", true },
        { "unprivileged user namespaces", h->user_namespaces, "available", "not available", false },
        { "proc of a given pid namespace", h->proc_pidns,
          "each machine's /proc is made by dsim with fsconfig \"pidns\"",
          "each machine's /proc is mounted by a helper forked into its pid namespace (Linux before 6.17)", false },
        { "unix sock_diag, eventfd mode in fdinfo", snap_fds_host_tells(),
          "a warm start's copies make event loops' pipes, socket pairs, eventfds and epoll sets anew",
          "a warm start with such fds at its point runs cold (Linux before 6.3, or no unix_diag)", false },
        { "kcmp (files two processes share)", snap_kcmp_works(),
          "a warm start copies process trees whose processes hold files past fd 2 or pipes between them",
          "a warm start with such process trees at its point runs cold (no CONFIG_CHECKPOINT_RESTORE)", false },
        { "legacy vsyscall page", h->vsyscall,
          "mapped: its time calls are emulated by the kernel as system calls, which dsim traps",
          "not mapped", false },
    };
    bool ok = true;
    printf("host: %s, %s\n", h->kernel, h->cpu[0] ? h->cpu : "unknown CPU");
    for (size_t i = 0; i < sizeof facts / sizeof *facts; i++) {
        const struct fact *f = &facts[i];
        printf("  %-38s %-3s  %s\n", f->what, f->yes ? "yes" : "no", f->yes ? f->if_yes : f->if_no);
        if (f->required && !f->yes) ok = false;
    }
    bool rewrite;
    char err[256];
    tsc_resolve(TSC_AUTO, &rewrite, err, sizeof err);
    printf("tsc = auto here means: %s\n", rewrite ? "rewrite" : "trap");
    enum cpuid_how cpuid;
    cpuid_resolve(CPUID_AUTO, &cpuid, err, sizeof err);
    printf("cpuid = auto here means: %s\n", cpuid == CPUID_BY_FAULT ? "trap" : "rewrite");
    struct vcpu vc;
    char missing[256];
    vcpu_for_host(&vc, 1, missing, sizeof missing);
    if (*missing)
        printf("virtual CPU: this host's CPU lacks %s, taken out of it here: a program that picks code by them "
               "may take other paths than on other hosts\n", missing);
    else
        printf("virtual CPU: every feature (x86-64-v2) present on this host's CPU\n");
    bool shared;
    if (supervisor_tsc_resolve(&shared, err, sizeof err) != 0) {
        printf("supervisor's rdtsc: %s\n", err);
        ok = false;
    } else {
        if (!rewrite)
            printf("supervisor's rdtsc while machines run: %s\n",
                   shared ? "faults too (no CR4 write at a stop's context switches)"
                          : "enabled (DSIM_SUPERVISOR_TSC=enable: every stop's two context switches write CR4)");
        if (cpuid == CPUID_BY_FAULT)
            printf("supervisor's cpuid while machines run: %s\n",
                   shared ? "faults too (no MSR write at a stop's context switches)"
                          : "enabled (DSIM_SUPERVISOR_TSC=enable: every stop's two context switches write an MSR)");
    }
    bool pidns;
    if (proc_mount_resolve(&pidns, err, sizeof err) != 0) {
        printf("machines' /proc: %s\n", err);
        ok = false;
    } else {
        printf("machines' /proc here: %s\n", pidns ? "pidns (fsconfig)" : "helper (mounted in the pid namespace)");
    }
    bool host_fds;
    if (warm_fds_resolve(&host_fds, err, sizeof err) != 0) {
        printf("warm start's fds made anew: %s\n", err);
        ok = false;
    } else if (!host_fds) {
        printf("warm start's fds made anew: refused, as on a host that cannot tell them (DSIM_WARM_FDS=old-host)\n");
    }
    bool index;
    if (overlay_index_resolve(&index, err, sizeof err) != 0) {
        printf("warm start's crashes: %s\n", err);
        ok = false;
    } else {
        printf("a crash in a seed from a warm start's snapshot: %s\n",
               index ? "runs that seed cold (overlayfs index on: a disk layer serves one mount at a time)"
                     : "copied (the machine starts again cold in the seed)");
    }
    printf("%s\n", ok ? "dsim can run here; a seed gives the same trace hash as on any other host with the same files"
                      : "dsim cannot run deterministically here");
    return ok ? 0 : 1;
}
