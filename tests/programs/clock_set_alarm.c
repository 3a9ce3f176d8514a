/* Setting clocks and the alarm clocks, as a process without CAP_SYS_TIME
 * and CAP_WAKE_ALARM (a machine's root has neither on the host) sees them:
 * clock_settime is EINVAL for a clock that cannot be set (monotonic,
 * boottime, TAI, raw, coarse, alarm, a bad id), EFAULT for a bad time,
 * then EINVAL for an invalid one or a CPU clock of no process, and EPERM;
 * settimeofday likewise. The alarm clocks depend on a real-time clock
 * device: "alarm" lines are what a machine with one answers (dsim's
 * machines have one): read as their clocks, EINVAL for bad sleep flags,
 * EPERM to sleep on or time; timerfd_create EPERM with or without one.
 * One line per case, the result and errno's name; the last line is "ok". */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#define BAD ((void *)8)

static void show(const char *what, long r)
{
    printf("%-44s %ld %s\n", what, r < 0 ? -1 : r, r < 0 ? strerrorname_np(errno) : "-");
}

static long settime(clockid_t c, const struct timespec *ts) { return syscall(SYS_clock_settime, c, ts); }

int main(void)
{
    struct timespec now = { 1700000000, 0 }, bad_ns = { 1700000000, 1000000000 }, neg = { -1, 0 };
    static const struct { const char *name; clockid_t id; } clocks[] = {
        { "realtime", CLOCK_REALTIME }, { "monotonic", CLOCK_MONOTONIC }, { "boottime", CLOCK_BOOTTIME },
        { "tai", CLOCK_TAI }, { "monotonic_raw", CLOCK_MONOTONIC_RAW }, { "realtime_coarse", CLOCK_REALTIME_COARSE },
        { "realtime_alarm", CLOCK_REALTIME_ALARM }, { "boottime_alarm", CLOCK_BOOTTIME_ALARM },
        { "process cputime", CLOCK_PROCESS_CPUTIME_ID }, { "thread cputime", CLOCK_THREAD_CPUTIME_ID },
        { "no clock 99", 99 }, { "cpu clock of no process", (clockid_t)((~4194304u << 3) | 2) },
        { "fd clock of fd 0", (clockid_t)((~0u << 3) | 3) }, { "-1", -1 },
        { "cpu clock of this process", 0 }, { "cpu clock of this thread", 0 },
    };
    size_t nclocks = sizeof clocks / sizeof *clocks;
    char what[96];
    for (size_t i = 0; i < nclocks; i++) {
        clockid_t id = clocks[i].id;
        if (i == nclocks - 2) id = (clockid_t)((~(unsigned)getpid() << 3) | 2);
        if (i == nclocks - 1) id = (clockid_t)((~(unsigned)gettid() << 3) | 6);
        snprintf(what, sizeof what, "settime %s", clocks[i].name);
        show(what, settime(id, &now));
        snprintf(what, sizeof what, "settime %s bad pointer", clocks[i].name);
        show(what, settime(id, BAD));
        snprintf(what, sizeof what, "settime %s bad nsec", clocks[i].name);
        show(what, settime(id, &bad_ns));
        snprintf(what, sizeof what, "settime %s negative", clocks[i].name);
        show(what, settime(id, &neg));
    }
    struct timeval tv = { 1700000000, 0 }, bad_us = { 1700000000, 1000000 }, neg_tv = { -1, 0 };
    struct timezone tz = { 0, 0 }, far_tz = { 16 * 60, 0 };
    show("settimeofday tv", syscall(SYS_settimeofday, &tv, NULL));
    show("settimeofday NULL NULL", syscall(SYS_settimeofday, NULL, NULL));
    show("settimeofday bad tv pointer", syscall(SYS_settimeofday, BAD, NULL));
    show("settimeofday bad tz pointer", syscall(SYS_settimeofday, &tv, BAD));
    show("settimeofday bad usec", syscall(SYS_settimeofday, &bad_us, NULL));
    show("settimeofday negative", syscall(SYS_settimeofday, &neg_tv, NULL));
    show("settimeofday tz", syscall(SYS_settimeofday, NULL, &tz));
    show("settimeofday far tz", syscall(SYS_settimeofday, NULL, &far_tz));
    static const struct { const char *name; clockid_t id; } alarms[] = {
        { "realtime_alarm", CLOCK_REALTIME_ALARM }, { "boottime_alarm", CLOCK_BOOTTIME_ALARM },
    };
    for (size_t i = 0; i < 2; i++) {
        struct timespec ts, req = { 0, 1000 };
        snprintf(what, sizeof what, "alarm %s gettime", alarms[i].name);
        show(what, syscall(SYS_clock_gettime, alarms[i].id, &ts));
        snprintf(what, sizeof what, "alarm %s getres", alarms[i].name);
        show(what, syscall(SYS_clock_getres, alarms[i].id, &ts));
        snprintf(what, sizeof what, "alarm %s nanosleep", alarms[i].name);
        show(what, syscall(SYS_clock_nanosleep, alarms[i].id, 0, &req, NULL));
        snprintf(what, sizeof what, "alarm %s nanosleep abstime", alarms[i].name);
        show(what, syscall(SYS_clock_nanosleep, alarms[i].id, TIMER_ABSTIME, &req, NULL));
        snprintf(what, sizeof what, "alarm %s nanosleep bad flags", alarms[i].name);
        show(what, syscall(SYS_clock_nanosleep, alarms[i].id, 2, &req, NULL));
        snprintf(what, sizeof what, "alarm %s nanosleep bad pointer", alarms[i].name);
        show(what, syscall(SYS_clock_nanosleep, alarms[i].id, 0, BAD, NULL));
        timer_t id;
        struct sigevent sev = { .sigev_notify = SIGEV_NONE };
        snprintf(what, sizeof what, "alarm %s timer_create", alarms[i].name);
        long r = syscall(SYS_timer_create, alarms[i].id, &sev, &id);
        show(what, r);
        if (r == 0) syscall(SYS_timer_delete, id);
        snprintf(what, sizeof what, "timerfd_create %s", alarms[i].name);
        r = timerfd_create(alarms[i].id, 0);
        show(what, r < 0 ? r : 0);
        if (r >= 0) close((int)r);
        snprintf(what, sizeof what, "timerfd_create %s bad flags", alarms[i].name);
        show(what, timerfd_create(alarms[i].id, 1));
    }
    /* The timer id a failed alarm timer_create used up. */
    timer_t next;
    struct sigevent none = { .sigev_notify = SIGEV_NONE };
    if (syscall(SYS_timer_create, CLOCK_MONOTONIC, &none, &next) == 0) {
        printf("%-44s %ld -\n", "next timer id", (long)(intptr_t)next);
        syscall(SYS_timer_delete, next);
    }
    printf("ok\n");
    return 0;
}
