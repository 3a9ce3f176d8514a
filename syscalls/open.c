/* open, openat and creat: the durability of a create (paths.c,
 * disk_open), and the files whose contents change at every open. */
#include "syscalls/sys.h"
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>

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

enum sys_action sys_creat(struct world *w, struct thread *t)
{
    return disk_open(w, t, AT_FDCWD, ARG0(t), O_CREAT);
}
