/* Bad and borrowed clock ids, across the calls that take one: what
 * clock_gettime (through libc, which may answer from the vDSO, and the
 * system call), clock_getres, clock_nanosleep and timer_create answer.
 *
 * A negative id is a CPU clock, (~pid << 3) | type, with 4 set for a
 * thread's; type 0-2 (PROF, VIRT, SCHED), 3 with the thread bit is no
 * clock (-1 is one), 3 without it a clock fd's (dynamic, ~fd << 3 | 3).
 * As the kernel's posix-cpu-timers: a thread clock must name a thread of
 * the caller's process, a process clock a process (its leader's pid; for a
 * read, the caller's own tid too); anything else is EINVAL. A clock fd's
 * id cannot be slept on or timed (EOPNOTSUPP), nor can the raw and coarse
 * clocks be timed. glibc's clock_getcpuclockid turns EINVAL into ESRCH.
 * A timer_create that fails after the clock check uses up a timer id.
 * One line per case, the result and errno's name; the last line is "ok". */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define PROC_CLOCK(pid, type) ((clockid_t)((~(unsigned)(pid) << 3) | (type)))
#define THREAD_CLOCK(tid, type) ((clockid_t)((~(unsigned)(tid) << 3) | (type) | 4))
#define FD_CLOCK(fd) ((clockid_t)((~(unsigned)(fd) << 3) | 3))
#define NO_PID 4194304          /* PID_MAX_LIMIT: never a pid */

static void show(const char *what, long r)
{
    printf("%-52s %ld %s\n", what, r, r < 0 ? strerrorname_np(errno) : "-");
}

static long gettime(clockid_t c)
{
    struct timespec ts;
    return syscall(SYS_clock_gettime, c, &ts);
}

static long getres(clockid_t c)
{
    struct timespec ts;
    return syscall(SYS_clock_getres, c, &ts);
}

static long libc_gettime(clockid_t c)
{
    struct timespec ts;
    return clock_gettime(c, &ts);
}

static long nsleep(clockid_t c, int flags, const struct timespec *req)
{
    return syscall(SYS_clock_nanosleep, c, flags, req, NULL);
}

/* timer_create, and the timer deleted again if made. */
static long tcreate(clockid_t c, struct sigevent *ev, void *id)
{
    int tid = -1;
    long r = syscall(SYS_timer_create, c, ev, id ? id : &tid);
    int e = errno;
    if (r == 0 && !id) syscall(SYS_timer_delete, tid);
    errno = e;
    return r;
}

/* Each of the four calls on clock c, named what. */
static void family(const char *what, clockid_t c)
{
    char name[96];
    struct timespec past = { 0, 0 };
    snprintf(name, sizeof name, "%s: libc clock_gettime", what);
    show(name, libc_gettime(c));
    snprintf(name, sizeof name, "%s: clock_gettime", what);
    show(name, gettime(c));
    snprintf(name, sizeof name, "%s: clock_getres", what);
    show(name, getres(c));
    snprintf(name, sizeof name, "%s: clock_nanosleep (done)", what);
    show(name, nsleep(c, TIMER_ABSTIME, &past));
    snprintf(name, sizeof name, "%s: timer_create", what);
    show(name, tcreate(c, NULL, NULL));
}

static pid_t other_tid;
static int to_thread[2], from_thread[2];

/* The second thread: its own tid as a process clock, then it waits. */
static void *second(void *arg)
{
    char b = 0;
    other_tid = (pid_t)syscall(SYS_gettid);
    family("own tid as process clock (not the leader)", PROC_CLOCK(other_tid, 2));
    fflush(stdout);
    if (write(from_thread[1], &b, 1) != 1 || read(to_thread[0], &b, 1) != 1) exit(1);
    return arg;
}

int main(void)
{
    void *bad = (void *)8;
    char b = 0;
    struct timespec ms = { 0, 1000000 }, past = { 0, 0 };
    int go[2];
    if (pipe(go) || pipe(to_thread) || pipe(from_thread)) return 1;
    setvbuf(stdout, NULL, _IOLBF, 0);

    /* A child that waits, and one already reaped (its pid is free). */
    pid_t child = fork();
    if (child == 0) { close(go[1]); if (read(go[0], &b, 1) < 0) _exit(1); _exit(0); }
    pid_t gone = fork();
    if (gone == 0) _exit(0);
    if (child < 0 || gone < 0 || waitpid(gone, NULL, 0) != gone) return 1;

    family("-1 (thread clock of type 3)", (clockid_t)-1);
    family("own thread clock of type 3", THREAD_CLOCK(syscall(SYS_gettid), 3));
    family("clock fd 0", FD_CLOCK(0));
    family("clock fd 999", FD_CLOCK(999));
    family("process clock of no pid", PROC_CLOCK(NO_PID, 2));
    family("process clock of a reaped child", PROC_CLOCK(gone, 2));
    family("thread clock of a reaped child", THREAD_CLOCK(gone, 2));
    family("thread clock of a child (another process)", THREAD_CLOCK(child, 2));
    family("process clock of a child", PROC_CLOCK(child, 2));
    family("own process clock by pid, PROF", PROC_CLOCK(getpid(), 0));
    family("own process clock by pid, VIRT", PROC_CLOCK(getpid(), 1));
    family("own process clock, pid 0", PROC_CLOCK(0, 2));
    family("clock 10", 10);
    family("clock 12", 12);
    family("clock 0x7fffffff", 0x7fffffff);

    pthread_t th;
    if (pthread_create(&th, NULL, second, NULL) || read(from_thread[0], &b, 1) != 1) return 1;
    family("another thread's tid as process clock", PROC_CLOCK(other_tid, 2));
    show("another thread's clock: clock_gettime", gettime(THREAD_CLOCK(other_tid, 2)));
    show("another thread's clock: timer_create", tcreate(THREAD_CLOCK(other_tid, 2), NULL, NULL));
    if (write(to_thread[1], &b, 1) != 1 || pthread_join(th, NULL)) return 1;

    /* A CPU clock's resolution: the scheduler clock's 1 ns, PROF and VIRT
     * a tick (as the coarse clocks'). */
    struct timespec r_sched, r_prof, r_virt, r_coarse;
    clock_getres(PROC_CLOCK(0, 2), &r_sched);
    clock_getres(PROC_CLOCK(0, 0), &r_prof);
    clock_getres(THREAD_CLOCK(0, 1), &r_virt);
    clock_getres(CLOCK_MONOTONIC_COARSE, &r_coarse);
    printf("%-52s %ld\n", "SCHED clock resolution (ns)", r_sched.tv_nsec);
    printf("%-52s %d\n", "PROF clock resolution is a tick",
           r_prof.tv_sec == 0 && labs(r_prof.tv_nsec - r_coarse.tv_nsec) <= 1);
    printf("%-52s %d\n", "VIRT thread clock resolution is a tick",
           r_virt.tv_sec == 0 && labs(r_virt.tv_nsec - r_coarse.tv_nsec) <= 1);

    /* The raw and coarse clocks cannot be timed. */
    show("timer_create CLOCK_MONOTONIC_RAW", tcreate(CLOCK_MONOTONIC_RAW, NULL, NULL));
    show("timer_create CLOCK_REALTIME_COARSE", tcreate(CLOCK_REALTIME_COARSE, NULL, NULL));
    show("timer_create CLOCK_MONOTONIC_COARSE", tcreate(CLOCK_MONOTONIC_COARSE, NULL, NULL));
    show("timer_create CLOCK_THREAD_CPUTIME_ID", tcreate(CLOCK_THREAD_CPUTIME_ID, NULL, NULL));

    /* Which error comes first. */
    show("clock_nanosleep -1, bad request", nsleep(-1, 0, bad));
    show("clock_nanosleep no pid, bad request", nsleep(PROC_CLOCK(NO_PID, 2), 0, bad));
    show("clock_nanosleep clock fd, bad request", nsleep(FD_CLOCK(0), 0, bad));
    show("clock_nanosleep clock 12, bad request", nsleep(12, 0, bad));
    show("clock_nanosleep own thread clock, bad request", nsleep(THREAD_CLOCK(0, 2), 0, bad));
    show("clock_nanosleep own thread clock", nsleep(THREAD_CLOCK(0, 2), 0, &ms));
    show("clock_nanosleep own thread clock of type 3", nsleep((clockid_t)-1, 0, &ms));
    show("clock_nanosleep child's process clock, past", nsleep(PROC_CLOCK(child, 2), TIMER_ABSTIME, &past));
    show("timer_create -1, bad sigevent", tcreate(-1, bad, NULL));
    show("timer_create clock 12, bad id address", tcreate(12, NULL, bad));
    show("timer_create clock fd, bad id address", tcreate(FD_CLOCK(0), NULL, bad));
    show("timer_create no pid, bad id address", tcreate(PROC_CLOCK(NO_PID, 2), NULL, bad));
    struct sigevent ev = { .sigev_notify = 99 };
    show("timer_create -1, bad notify", tcreate(-1, &ev, NULL));
    show("timer_create clock fd, bad notify", tcreate(FD_CLOCK(0), &ev, NULL));
    show("timer_create no pid, bad notify", tcreate(PROC_CLOCK(NO_PID, 2), &ev, NULL));
    struct sigevent thr = { .sigev_notify = SIGEV_THREAD, .sigev_signo = SIGUSR1 };
    show("timer_create SIGEV_THREAD (a signal)", tcreate(CLOCK_MONOTONIC, &thr, NULL));

    /* Ids are taken in order and never reused; a create that fails once
     * its clock is known uses one up. */
    int id = -1;
    show("timer_create monotonic", tcreate(CLOCK_MONOTONIC, NULL, &id));
    printf("%-52s %d\n", "its id", id);

    /* glibc's wrappers. */
    clockid_t c;
    int e = clock_getcpuclockid(NO_PID, &c);
    printf("%-52s %s\n", "clock_getcpuclockid(no pid)", e ? strerrorname_np(e) : "0");
    e = clock_getcpuclockid(gone, &c);
    printf("%-52s %s\n", "clock_getcpuclockid(reaped child)", e ? strerrorname_np(e) : "0");
    e = clock_getcpuclockid(child, &c);
    printf("%-52s %s %d\n", "clock_getcpuclockid(child)", e ? strerrorname_np(e) : "0", c == PROC_CLOCK(child, 2));

    close(go[1]);
    if (waitpid(child, NULL, 0) != child) return 1;
    printf("ok\n");
    return 0;
}
