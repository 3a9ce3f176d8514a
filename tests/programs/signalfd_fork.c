/* A signalfd across fork and exec: a child inherits it and reads its own
 * signals through it, not its parent's, and the parent the other way
 * round; a signal pending at exec is read through the signalfd the new
 * program inherited (one made without SFD_CLOEXEC), while one made with it
 * is gone; and two processes that each wait in epoll on their own
 * signalfd, as PostgreSQL's latches do, wake each other with kill. One
 * line per case. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

static int readable(int f)
{
    struct pollfd p = { f, POLLIN, 0 };
    return poll(&p, 1, 0);
}

static int take(int f)
{
    struct signalfd_siginfo si;
    ssize_t n = read(f, &si, sizeof si);
    return n == sizeof si ? (int)si.ssi_signo : -errno;
}

static void say(const char *who, const char *what, int v)
{
    printf("%-7s %-46s %d\n", who, what, v);
    fflush(stdout);
}

static void wait_byte(int f)
{
    char c;
    if (read(f, &c, 1) != 1) exit(2);
}

static void send_byte(int f)
{
    if (write(f, "x", 1) != 1) exit(2);
}

/* After exec: fd is the inherited signalfd, fd2 was made SFD_CLOEXEC. */
static int after_exec(int fd, int fd2)
{
    say("exec'd", "signal pending from before the exec", readable(fd));
    say("exec'd", "read", take(fd));
    say("exec'd", "the SFD_CLOEXEC one is closed", fcntl(fd2, F_GETFD) < 0 && errno == EBADF);
    return 0;
}

/* Two processes, each waiting in epoll on its own signalfd for SIGURG:
 * rounds of kill and wake-up. */
static int latch(int me, pid_t peer, int rounds, int start)
{
    int sfd;
    sigset_t m;
    sigemptyset(&m);
    sigaddset(&m, SIGURG);
    sfd = signalfd(-1, &m, SFD_NONBLOCK | SFD_CLOEXEC);
    int ep = epoll_create1(EPOLL_CLOEXEC);
    struct epoll_event ev = { EPOLLIN, { .u32 = 7 } }, out;
    epoll_ctl(ep, EPOLL_CTL_ADD, sfd, &ev);
    if (start) kill(peer, SIGURG);
    for (int i = 0; i < rounds; i++) {
        int n = epoll_wait(ep, &out, 1, 5000);
        int sig = take(sfd);
        if (n != 1 || out.data.u32 != 7 || sig != SIGURG) printf("latch %d: round %d went wrong\n", me, i);
        if (i < rounds - 1 || !start) kill(peer, SIGURG);
    }
    return rounds;
}

int main(int argc, char **argv)
{
    if (argc == 4 && !strcmp(argv[1], "after-exec")) return after_exec(atoi(argv[2]), atoi(argv[3]));
    sigset_t mask;
    sigemptyset(&mask);
    sigaddset(&mask, SIGUSR1);
    sigaddset(&mask, SIGUSR2);
    sigaddset(&mask, SIGURG);
    sigprocmask(SIG_BLOCK, &mask, NULL);
    int fd = signalfd(-1, &mask, SFD_NONBLOCK);
    int fd2 = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
    int to_child[2], to_parent[2];
    if (pipe(to_child) || pipe(to_parent)) return 1;

    pid_t child = fork();
    if (child == 0) {
        say("child", "inherited fd, nothing pending", readable(fd));
        send_byte(to_parent[1]);
        wait_byte(to_child[0]);             /* the parent sent us USR1, itself USR2 */
        say("child", "sees its own USR1", readable(fd));
        say("child", "reads", take(fd));
        say("child", "then nothing (the parent's USR2 is not ours)", readable(fd));
        send_byte(to_parent[1]);
        wait_byte(to_child[0]);             /* sent USR2 before the exec */
        char a[16], b[16];
        snprintf(a, sizeof a, "%d", fd);
        snprintf(b, sizeof b, "%d", fd2);
        execl("/proc/self/exe", argv[0], "after-exec", a, b, (char *)NULL);
        _exit(3);
    }
    wait_byte(to_parent[0]);
    kill(child, SIGUSR1);
    raise(SIGUSR2);
    send_byte(to_child[1]);
    wait_byte(to_parent[0]);
    say("parent", "sees its own USR2", readable(fd));
    say("parent", "reads", take(fd));
    kill(child, SIGUSR2);
    send_byte(to_child[1]);
    int st;
    waitpid(child, &st, 0);
    say("parent", "child exit status", WEXITSTATUS(st));

    pid_t a = getpid(), b = fork();
    if (b == 0) {
        say("child", "latch wake-ups", latch(2, a, 20, 0));
        _exit(0);
    }
    int n = latch(1, b, 20, 1);
    waitpid(b, &st, 0);
    say("parent", "latch wake-ups", n);
    say("parent", "latch child exit status", WEXITSTATUS(st));
    return 0;
}
