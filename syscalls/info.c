/* What a machine learns about its host: fixed, per machine, never the host's. */
#include "syscalls/sys.h"
#include "world/tracer.h"
#include <fcntl.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <string.h>
#include <asm/prctl.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/sysinfo.h>
#include <sys/times.h>
#include <sys/utsname.h>

enum sys_action sys_uname(struct world *w, struct thread *t)
{
    struct utsname u;
    memset(&u, 0, sizeof u);
    strcpy(u.sysname, "Linux");
    snprintf(u.nodename, sizeof u.nodename, "%s", t->proc->m->name);
    strcpy(u.release, DSIM_KERNEL_RELEASE);
    strcpy(u.version, DSIM_KERNEL_VERSION);
    strcpy(u.machine, "x86_64");
    strcpy(u.domainname, "(none)");
    return emulate(t, mem_write(t->tid, ARG0(t), &u, sizeof u) ? -EFAULT : 0);
}

static long live_processes(struct world *w, struct machine *m)
{
    long n = 1;     /* init */
    for (size_t i = 0; i < w->nprocs; i++)
        if (w->procs[i]->m == m && !w->procs[i]->exited) n++;
    return n;
}

enum sys_action sys_sysinfo(struct world *w, struct thread *t)
{
    struct sysinfo si;
    memset(&si, 0, sizeof si);
    si.uptime = (long)(machine_monotonic(w, t->proc->m) / 1000000000ULL);
    si.totalram = w->conf->memory_bytes;
    si.freeram = w->conf->memory_bytes / 2;
    si.procs = (unsigned short)live_processes(w, t->proc->m);
    si.mem_unit = 1;
    return emulate(t, mem_write(t->tid, ARG0(t), &si, sizeof si) ? -EFAULT : 0);
}

/* CPU time is virtual: steps taken times the quantum. */
enum sys_action sys_times(struct world *w, struct thread *t)
{
    bool ok;
    uint64_t cpu = clock_now(w, t, 2 /* CLOCK_PROCESS_CPUTIME_ID */, &ok);
    uint64_t children = t->proc->children_steps * w->conf->quantum_ns;
    struct tms tm = { (clock_t)(cpu / 10000000), 0, (clock_t)(children / 10000000), 0 };
    if (ARG0(t) && mem_write(t->tid, ARG0(t), &tm, sizeof tm)) return emulate(t, -EFAULT);
    return emulate(t, (long)(machine_monotonic(w, t->proc->m) / 10000000));
}

enum sys_action sys_getrusage(struct world *w, struct thread *t)
{
    int who = (int)ARG0(t);
    if (who != RUSAGE_SELF && who != RUSAGE_CHILDREN && who != RUSAGE_THREAD) return emulate(t, -EINVAL);
    struct rusage ru;
    memset(&ru, 0, sizeof ru);
    bool ok;
    /* Children: those its threads waited for, as on Linux. */
    uint64_t cpu = who == RUSAGE_CHILDREN ? t->proc->children_steps * w->conf->quantum_ns
                                          : clock_now(w, t, who == RUSAGE_THREAD ? 3 : 2, &ok);
    ru.ru_utime.tv_sec = (time_t)(cpu / 1000000000ULL);
    ru.ru_utime.tv_usec = (suseconds_t)(cpu % 1000000000ULL / 1000);
    if (who != RUSAGE_CHILDREN || cpu) ru.ru_maxrss = 16384;
    /* Context switches as /proc/PID/status shows them (procfs.c). */
    uint64_t nvcsw = t->nvcsw, nivcsw = t->nivcsw;
    if (who == RUSAGE_SELF) process_switches(w, t->proc, &nvcsw, &nivcsw);
    if (who != RUSAGE_CHILDREN) {
        ru.ru_nvcsw = (long)nvcsw;
        ru.ru_nivcsw = (long)nivcsw;
    }
    return emulate(t, mem_write(t->tid, ARG1(t), &ru, sizeof ru) ? -EFAULT : 0);
}

/* The simulation's pins must hold: rdtsc keeps reading virtual time
 * (through its fault or its rewrite, and a program sees the same either
 * way: the TSC enabled) and no exec gets address randomization back. */
enum sys_action sys_prctl(struct world *w, struct thread *t)
{
    if (ARG0(t) == PR_SET_TSC) return emulate(t, ARG1(t) == PR_TSC_ENABLE || ARG1(t) == PR_TSC_SIGSEGV ? 0 : -EINVAL);
    if (ARG0(t) == PR_GET_TSC) {
        int enabled = PR_TSC_ENABLE;
        return emulate(t, mem_write(t->tid, ARG1(t), &enabled, sizeof enabled) ? -EFAULT : 0);
    }
    if (ARG0(t) == PR_SET_CHILD_SUBREAPER) return proc_set_subreaper(w, t);
    return SYS_PASS;
}

/* cpuid's mode is dsim's (world/cpuidarm.h): the virtual CPU has no CPUID
 * faulting, so ARCH_SET_CPUID fails as on such a CPU (ENODEV, whatever
 * its argument) and ARCH_GET_CPUID says cpuid is enabled. The other
 * options are not trapped (table.c). */
enum sys_action sys_arch_prctl(struct world *w, struct thread *t)
{
    if (!w->cpuid_virtual) return SYS_PASS;
    if ((int)ARG0(t) == ARCH_GET_CPUID) return emulate(t, 1);
    if ((int)ARG0(t) == ARCH_SET_CPUID) return emulate(t, -ENODEV);
    return SYS_PASS;
}

static void personality_done(struct world *w, struct thread *t, long result)
{
    t->regs.rdi = t->call.personality.persona;
    t->regs_dirty = true;
}

enum sys_action sys_personality(struct world *w, struct thread *t)
{
    if ((unsigned)ARG0(t) == 0xffffffffu || (ARG0(t) & ADDR_NO_RANDOMIZE)) return SYS_PASS;
    t->call.personality.persona = ARG0(t);
    t->regs.rdi |= ADDR_NO_RANDOMIZE;
    t->regs_dirty = true;
    t->on_exit = personality_done;
    return SYS_PASS_EXIT;
}
