/* sigmask_wait: the event-loop pattern of blocking SIGCHLD and letting it in
 * only while waiting, atomically: pselect, ppoll and epoll_pwait with a
 * signal mask, no timeout and nothing to read. Each wait must end with
 * EINTR once the child exits, with the handler run. */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile sig_atomic_t got;
static void on_chld(int sig) { (void)sig; got++; }

static void child_exits_soon(void)
{
    if (fork() == 0) { usleep(100000); _exit(0); }
}

int main(void)
{
    struct sigaction sa = { .sa_handler = on_chld };
    sigaction(SIGCHLD, &sa, NULL);
    sigset_t block, none;
    sigemptyset(&block);
    sigaddset(&block, SIGCHLD);
    sigprocmask(SIG_BLOCK, &block, NULL);
    sigemptyset(&none);

    child_exits_soon();
    int r = pselect(0, NULL, NULL, NULL, NULL, &none);
    printf("pselect: %d %s, handler ran %d\n", r, r < 0 && errno == EINTR ? "EINTR" : "?", (int)got);
    wait(NULL);

    child_exits_soon();
    r = ppoll(NULL, 0, NULL, &none);
    printf("ppoll: %d %s, handler ran %d\n", r, r < 0 && errno == EINTR ? "EINTR" : "?", (int)got);
    wait(NULL);

    int ep = epoll_create1(EPOLL_CLOEXEC);
    struct epoll_event ev;
    child_exits_soon();
    r = epoll_pwait(ep, &ev, 1, -1, &none);
    printf("epoll_pwait: %d %s, handler ran %d\n", r, r < 0 && errno == EINTR ? "EINTR" : "?", (int)got);
    wait(NULL);
    return got == 3 ? 0 : 1;
}
