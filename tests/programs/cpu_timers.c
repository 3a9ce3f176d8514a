/* Timers on CPU time: setitimer(ITIMER_PROF and ITIMER_VIRTUAL) and POSIX
 * timers on the process's and the thread's CPU clocks fire once the
 * process has worked that long (here in system calls, which is all the CPU
 * time dsim counts); getitimer and timer_gettime read them back; bad
 * arguments get Linux's errors. One line per fact. */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t prof, virt, usr1, usr2;

static void on_signal(int sig)
{
    if (sig == SIGPROF) prof++;
    else if (sig == SIGVTALRM) virt++;
    else if (sig == SIGUSR1) usr1++;
    else if (sig == SIGUSR2) usr2++;
}

/* Works (in system calls) until *flag reaches n, at most `limit` calls. */
static int work_until(volatile sig_atomic_t *flag, int n)
{
    for (long i = 0; i < 100000000 && *flag < n; i++) getppid();
    return *flag >= n;
}

static void show(const char *what, long r)
{
    printf("%-40s %ld %s\n", what, r, r < 0 ? strerrorname_np(errno) : "-");
}

int main(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sa.sa_flags = SA_RESTART;
    for (int s = 1; s < 32; s++)
        if (s == SIGPROF || s == SIGVTALRM || s == SIGUSR1 || s == SIGUSR2) sigaction(s, &sa, NULL);

    struct itimerval every5ms = { { 0, 5000 }, { 0, 5000 } }, once2ms = { { 0, 0 }, { 0, 2000 } }, cur;
    show("setitimer prof", setitimer(ITIMER_PROF, &every5ms, NULL));
    getitimer(ITIMER_PROF, &cur);
    printf("%-40s %ld\n", "prof interval us", (long)cur.it_interval.tv_usec);
    printf("%-40s %d\n", "prof fired 3 times", work_until(&prof, 3));
    struct itimerval off = { { 0, 0 }, { 0, 0 } };
    setitimer(ITIMER_PROF, &off, &cur);
    printf("%-40s %ld\n", "old prof interval us", (long)cur.it_interval.tv_usec);

    show("setitimer virtual", setitimer(ITIMER_VIRTUAL, &once2ms, NULL));
    printf("%-40s %d\n", "virtual fired", work_until(&virt, 1));
    getitimer(ITIMER_VIRTUAL, &cur);
    printf("%-40s %d\n", "virtual disarmed after", cur.it_value.tv_sec == 0 && cur.it_value.tv_usec == 0);

    show("setitimer bad which", setitimer(7, &once2ms, NULL));
    show("getitimer bad which", getitimer(-1, &cur));
    show("setitimer bad new value", syscall(SYS_setitimer, ITIMER_VIRTUAL, (void *)8, NULL));
    show("setitimer bad old value", syscall(SYS_setitimer, ITIMER_VIRTUAL, &every5ms, (void *)8));
    getitimer(ITIMER_VIRTUAL, &cur);
    printf("%-40s %d\n", "armed despite the bad old value", cur.it_interval.tv_usec == 5000);
    setitimer(ITIMER_VIRTUAL, &off, NULL);

    /* POSIX timers on the process's and the thread's CPU clocks. */
    timer_t pt, tt;
    struct sigevent ev;
    memset(&ev, 0, sizeof ev);
    ev.sigev_notify = SIGEV_SIGNAL;
    ev.sigev_signo = SIGUSR1;
    show("timer_create process cputime", timer_create(CLOCK_PROCESS_CPUTIME_ID, &ev, &pt));
    ev.sigev_signo = SIGUSR2;
    show("timer_create thread cputime", timer_create(CLOCK_THREAD_CPUTIME_ID, &ev, &tt));
    struct itimerspec in3ms = { { 0, 0 }, { 0, 3000000 } }, got;
    show("timer_settime process", timer_settime(pt, 0, &in3ms, NULL));
    show("timer_settime thread", timer_settime(tt, 0, &in3ms, NULL));
    timer_gettime(pt, &got);
    printf("%-40s %d\n", "process timer armed", got.it_value.tv_nsec > 0 && got.it_value.tv_nsec <= 3000000);
    printf("%-40s %d\n", "process timer fired", work_until(&usr1, 1));
    printf("%-40s %d\n", "thread timer fired", work_until(&usr2, 1));
    timer_gettime(pt, &got);
    printf("%-40s %d\n", "process timer disarmed after", got.it_value.tv_sec == 0 && got.it_value.tv_nsec == 0);
    show("timer_create bad clock", timer_create(99, &ev, &pt));
    return 0;
}
