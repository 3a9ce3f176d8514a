/* What a machine learns about its host: fixed, per machine, never the host's. */
#include "syscalls/sys.h"
#include "world/tracer.h"
#include <fcntl.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <string.h>
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

enum sys_action sys_sched_yield(struct world *w, struct thread *t) { return emulate(t, 0); }

enum sys_action sys_getcpu(struct world *w, struct thread *t)
{
    unsigned zero = 0;
    if (ARG0(t) && mem_write(t->tid, ARG0(t), &zero, sizeof zero)) return emulate(t, -EFAULT);
    if (ARG1(t) && mem_write(t->tid, ARG1(t), &zero, sizeof zero)) return emulate(t, -EFAULT);
    return emulate(t, 0);
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

enum sys_action sys_enosys(struct world *w, struct thread *t) { return emulate(t, -ENOSYS); }
enum sys_action sys_pass(struct world *w, struct thread *t) { return SYS_PASS; }
enum sys_action sys_fence(struct world *w, struct thread *t) { return SYS_FENCE; }

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

enum sys_action sys_open(struct world *w, struct thread *t)
{
    char path[40];
    bool at = SYSNR(t) == SYS_openat;
    uint64_t addr = at ? ARG1(t) : ARG0(t);
    size_t i = 0;
    if (mem_read_str(t->tid, addr, path, sizeof path) >= 0)
        while (i < NLIVE && strcmp(path, live_files[i].path)) i++;
    else i = NLIVE;
    if (i == NLIVE) {
        if (w->trace_results) t->exit_note = outside_open_noted;
        return disk_open(w, t, at ? (int)ARG0(t) : AT_FDCWD, addr, (int)(at ? ARG2(t) : ARG1(t)));
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
