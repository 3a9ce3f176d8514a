/* pidfds: pidfd_open, a pidfd polled until its process ends,
 * pidfd_send_signal waking a child blocked in pause() (a handler that
 * exits 7) and killing one (SIGTERM), waitid(P_PIDFD), pidfd_getfd, and
 * the errors of each. One line per case. */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static void show(const char *what, long r)
{
    printf("%-44s %ld %s\n", what, r, r < 0 ? strerrorname_np(errno) : "-");
    fflush(stdout);
}

static int pidfd_open(pid_t pid, unsigned flags) { return (int)syscall(SYS_pidfd_open, pid, flags); }
static long send_signal(int fd, int sig, unsigned flags) { return syscall(SYS_pidfd_send_signal, fd, sig, NULL, flags); }

static void on_usr1(int sig) { (void)sig; _exit(7); }

static pid_t child_pausing(void)
{
    pid_t pid = fork();
    if (pid == 0) {
        signal(SIGUSR1, on_usr1);
        for (;;) pause();
    }
    return pid;
}

static int readable(int fd, int ms)
{
    struct pollfd p = { fd, POLLIN, 0 };
    return poll(&p, 1, ms) == 1 && (p.revents & POLLIN);
}

static void waited(const char *what, int fd)
{
    siginfo_t si = { 0 };
    long r = waitid(P_PIDFD, (id_t)fd, &si, WEXITED);
    printf("%-44s %ld code %d status %d\n", what, r, si.si_code, si.si_status);
    fflush(stdout);
}

int main(void)
{
    /* A handler: the child blocked in pause() is woken and exits 7. */
    pid_t a = child_pausing();
    int fa = pidfd_open(a, 0);
    show("pidfd_open a child", fa >= 0);
    usleep(10000);
    show("  readable while it runs", readable(fa, 0));
    show("pidfd_send_signal SIGUSR1", send_signal(fa, SIGUSR1, 0));
    show("  readable once it ends", readable(fa, 5000));
    waited("  waitid P_PIDFD", fa);

    /* SIGTERM kills; signal 0 only checks. */
    pid_t b = child_pausing();
    int fb = pidfd_open(b, 0);
    usleep(10000);
    show("pidfd_send_signal 0", send_signal(fb, 0, 0));
    show("pidfd_send_signal SIGTERM", send_signal(fb, SIGTERM, 0));
    show("  readable once it ends", readable(fb, 5000));
    waited("  waitid P_PIDFD", fb);
    show("pidfd_send_signal to a reaped child", send_signal(fb, SIGTERM, 0));

    /* Errors. */
    show("pidfd_open no such pid", pidfd_open(999999, 0));
    show("pidfd_open bad flags", pidfd_open(getpid(), 1));
    show("pidfd_open pid 0", pidfd_open(0, 0));
    show("pidfd_send_signal not a pidfd", send_signal(1, SIGTERM, 0));
    show("pidfd_send_signal bad fd", send_signal(99, SIGTERM, 0));
    int self = pidfd_open(getpid(), 0);
    show("pidfd_send_signal bad flags", send_signal(self, 0, 1));
    show("pidfd_send_signal bad signal", send_signal(self, 65, 0));

    /* pidfd_getfd: a copy of this process's stdout. */
    int out = (int)syscall(SYS_pidfd_getfd, self, 1, 0);
    show("pidfd_getfd of stdout", out >= 0);
    if (out >= 0) dprintf(out, "%-44s written through the copy\n", "  and");
    show("pidfd_getfd bad fd", syscall(SYS_pidfd_getfd, self, 99, 0));
    show("pidfd_getfd bad flags", syscall(SYS_pidfd_getfd, self, 1, 1));
    return 0;
}
