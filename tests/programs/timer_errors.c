/* Timers and sleeps at their edges: timerfd_settime/gettime on bad fds and
 * flags (and the order Linux checks them in), the old value written after
 * the timer is armed, clock_nanosleep on every kind of clock, an
 * interrupted sleep whose remaining-time address is bad, and a sleep on the
 * process's CPU clock while another thread works. One line per case. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

static void show(const char *what, long r)
{
    printf("%-44s %ld %s\n", what, r, r < 0 ? strerrorname_np(errno) : "-");
}

static long raw_sleep(clockid_t clk, int flags, const struct timespec *req, struct timespec *rem)
{
    return syscall(SYS_clock_nanosleep, clk, flags, req, rem);
}

static atomic_int done;

static void *worker(void *arg)
{
    while (!atomic_load(&done)) getppid();      /* CPU time, one system call at a time */
    return arg;
}

static void on_alarm(int sig) { (void)sig; }

int main(void)
{
    struct itimerspec one = { { 0, 0 }, { 1, 0 } }, cur;
    void *bad = (void *)8;
    int tfd = timerfd_create(CLOCK_MONOTONIC, 0), pipefd[2];
    if (tfd < 0 || pipe(pipefd)) return 1;
    show("timerfd_settime closed fd", syscall(SYS_timerfd_settime, 999, 0, &one, NULL));
    show("timerfd_settime pipe fd", syscall(SYS_timerfd_settime, pipefd[0], 0, &one, NULL));
    show("timerfd_settime closed fd bad flags", syscall(SYS_timerfd_settime, 999, 0x40, &one, NULL));
    show("timerfd_settime closed fd bad value", syscall(SYS_timerfd_settime, 999, 0, bad, NULL));
    show("timerfd_gettime closed fd", syscall(SYS_timerfd_gettime, 999, &cur));
    show("timerfd_gettime pipe fd", syscall(SYS_timerfd_gettime, pipefd[0], &cur));
    show("timerfd_gettime bad address", syscall(SYS_timerfd_gettime, tfd, bad));
    show("timerfd_settime bad old address", syscall(SYS_timerfd_settime, tfd, 0, &one, bad));
    timerfd_gettime(tfd, &cur);
    printf("%-44s %d\n", "armed despite the bad old address", cur.it_value.tv_sec > 0 || cur.it_value.tv_nsec > 0);

    struct timespec ms = { 0, 1000000 }, neg = { 0, -5 }, zero = { 0, 0 }, rem;
    show("clock_nanosleep thread cputime", raw_sleep(CLOCK_THREAD_CPUTIME_ID, 0, &ms, NULL));
    show("clock_nanosleep monotonic_raw", raw_sleep(CLOCK_MONOTONIC_RAW, 0, &ms, NULL));
    show("clock_nanosleep realtime_coarse", raw_sleep(CLOCK_REALTIME_COARSE, 0, &ms, NULL));
    show("clock_nanosleep monotonic_coarse", raw_sleep(CLOCK_MONOTONIC_COARSE, 0, &ms, NULL));
    show("clock_nanosleep clock 99", raw_sleep(99, 0, &ms, NULL));
    show("clock_nanosleep thread cputime bad request", raw_sleep(CLOCK_THREAD_CPUTIME_ID, 0, bad, NULL));
    show("clock_nanosleep monotonic bad request", raw_sleep(CLOCK_MONOTONIC, 0, bad, NULL));
    show("clock_nanosleep monotonic negative", raw_sleep(CLOCK_MONOTONIC, 0, &neg, NULL));
    show("clock_nanosleep monotonic zero", raw_sleep(CLOCK_MONOTONIC, 0, &zero, &rem));
    show("clock_nanosleep process cputime past", raw_sleep(CLOCK_PROCESS_CPUTIME_ID, TIMER_ABSTIME, &zero, NULL));
    clockid_t thread;
    pthread_getcpuclockid(pthread_self(), &thread);
    show("clock_nanosleep own thread clock", raw_sleep(thread, 0, &ms, NULL));

    /* A sleep on the process's CPU clock (by its constant, and by pid) or
     * on the other thread's clock ends once the other thread has spent that
     * much CPU. */
    pthread_t th;
    pthread_create(&th, NULL, worker, NULL);
    show("clock_nanosleep process cputime 1ms", raw_sleep(CLOCK_PROCESS_CPUTIME_ID, 0, &ms, NULL));
    clockid_t self, other;
    clock_getcpuclockid(getpid(), &self);
    show("clock_nanosleep own process clock by pid", raw_sleep(self, 0, &ms, NULL));
    pthread_getcpuclockid(th, &other);
    show("clock_nanosleep other thread's clock", raw_sleep(other, 0, &ms, NULL));
    atomic_store(&done, 1);
    pthread_join(th, NULL);

    /* An interrupted sleep with a bad remaining-time address: EFAULT. */
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_alarm;
    sigaction(SIGALRM, &sa, NULL);
    struct timespec second = { 1, 0 };
    alarm(1);
    struct timespec two = { 2, 0 };
    show("nanosleep interrupted bad rem", syscall(SYS_nanosleep, &two, bad));
    alarm(1);
    show("clock_nanosleep interrupted bad rem", raw_sleep(CLOCK_MONOTONIC, 0, &two, bad));
    alarm(1);
    show("clock_nanosleep interrupted good rem", raw_sleep(CLOCK_MONOTONIC, 0, &two, &rem));
    double left = rem.tv_sec + rem.tv_nsec / 1e9;
    printf("%-44s %d\n", "remaining about a second", left > 0.5 && left < 1.5);
    (void)second;
    return 0;
}
