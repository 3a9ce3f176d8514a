/* posix_timers: timer_create and friends. A periodic SIGEV_SIGNAL timer
 * whose handler checks si_code and si_value; a SIGEV_NONE timer read with
 * timer_gettime; a SIGEV_THREAD timer (glibc's helper thread waits in
 * sigwaitinfo); timer_delete; bad arguments. Prints one line per check. */
#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t fired, bad_code, bad_value;
static atomic_int thread_fired;

static void on_timer(int sig, siginfo_t *si, void *ctx)
{
    (void)sig; (void)ctx;
    fired++;
    if (si->si_code != SI_TIMER) bad_code = 1;
    if (si->si_value.sival_int != 42) bad_value = 1;
}

static void on_thread(union sigval v)
{
    if (v.sival_int == 7) atomic_fetch_add(&thread_fired, 1);
}

int main(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_timer;
    sa.sa_flags = SA_SIGINFO;
    sigaction(SIGUSR1, &sa, NULL);

    timer_t t;
    struct sigevent ev;
    memset(&ev, 0, sizeof ev);
    ev.sigev_notify = SIGEV_SIGNAL;
    ev.sigev_signo = SIGUSR1;
    ev.sigev_value.sival_int = 42;
    if (timer_create(CLOCK_MONOTONIC, &ev, &t)) { perror("timer_create"); return 1; }
    struct itimerspec its = { { 0, 10000000 }, { 0, 10000000 } };
    timer_settime(t, 0, &its, NULL);
    while (fired < 5) pause();
    struct itimerspec off = { { 0, 0 }, { 0, 0 } };
    timer_settime(t, 0, &off, NULL);
    printf("signal timer: 5 expirations, si_code %s, si_value %s\n", bad_code ? "WRONG" : "SI_TIMER",
           bad_value ? "WRONG" : "42");
    timer_delete(t);
    printf("settime after delete: %s\n", timer_settime(t, 0, &its, NULL) == -1 && errno == EINVAL ? "EINVAL" : "accepted");

    memset(&ev, 0, sizeof ev);
    ev.sigev_notify = SIGEV_NONE;
    timer_create(CLOCK_REALTIME, &ev, &t);
    struct itimerspec one = { { 0, 0 }, { 1, 0 } }, cur;
    timer_settime(t, 0, &one, NULL);
    usleep(100000);
    timer_gettime(t, &cur);
    long left_ms = cur.it_value.tv_sec * 1000 + cur.it_value.tv_nsec / 1000000;
    printf("SIGEV_NONE timer: %s\n", left_ms > 0 && left_ms <= 900 ? "counts down" : "WRONG");
    timer_delete(t);

    memset(&ev, 0, sizeof ev);
    ev.sigev_notify = SIGEV_THREAD;
    ev.sigev_notify_function = on_thread;
    ev.sigev_value.sival_int = 7;
    if (timer_create(CLOCK_MONOTONIC, &ev, &t)) { perror("timer_create thread"); return 1; }
    struct itimerspec once = { { 0, 0 }, { 0, 50000000 } };
    timer_settime(t, 0, &once, NULL);
    for (int i = 0; i < 100 && !atomic_load(&thread_fired); i++) usleep(10000);
    printf("SIGEV_THREAD timer: %s\n", atomic_load(&thread_fired) == 1 ? "callback ran once" : "WRONG");
    timer_delete(t);

    printf("bad clock: %s\n", timer_create(12345, NULL, &t) == -1 && errno == EINVAL ? "EINVAL" : "accepted");
    return bad_code || bad_value;
}
