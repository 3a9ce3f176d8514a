/* select(2) interrupted by a signal writes the time left back to its
 * timeval, as Linux does on every return: a 3 s select cut by a 1 s alarm
 * leaves about 2 s; one that times out leaves 0. Prints a line per check;
 * exit 0 only if all hold (the same natively and under dsim). */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <sys/select.h>
#include <unistd.h>

static void on_alarm(int sig) { (void)sig; }

int main(void)
{
    struct sigaction sa = { .sa_handler = on_alarm };
    sigaction(SIGALRM, &sa, NULL);
    int bad = 0;
    alarm(1);
    struct timeval tv = { 3, 0 };
    int r = select(0, NULL, NULL, NULL, &tv);
    long left_ms = tv.tv_sec * 1000 + tv.tv_usec / 1000;
    int ok = r == -1 && errno == EINTR && left_ms >= 1900 && left_ms <= 2100;
    printf("interrupted select: EINTR with about 2 s left: %s\n", ok ? "ok" : "WRONG");
    if (!ok) printf("  got %d, %ld ms left\n", r, left_ms);
    bad += !ok;
    tv = (struct timeval){ 0, 200000 };
    r = select(0, NULL, NULL, NULL, &tv);
    ok = r == 0 && tv.tv_sec == 0 && tv.tv_usec == 0;
    printf("timed-out select: 0 left: %s\n", ok ? "ok" : "WRONG");
    bad += !ok;
    return bad != 0;
}
