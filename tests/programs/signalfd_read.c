/* signalfd reads: one read takes every pending signal of the mask that
 * fits (the thread's own first, then the process's, lowest number first,
 * real-time signals in the order sent), with its siginfo; an empty
 * non-blocking signalfd is EAGAIN; a short buffer EINVAL; SFD_CLOEXEC and
 * SFD_NONBLOCK set the flags; signalfd() on an existing signalfd changes
 * its mask; the errors of signalfd4. One line per case. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <unistd.h>

static void show(const char *what, long r)
{
    printf("%-40s %ld %s\n", what, r, r < 0 ? strerrorname_np(errno) : "-");
}

static void drain(int fd, const char *what)
{
    struct signalfd_siginfo si[8];
    ssize_t n = read(fd, si, sizeof si);
    show(what, n);
    for (ssize_t i = 0; i < n / (ssize_t)sizeof *si; i++)
        printf("  signo %s code %d int %d from self %d\n", sigabbrev_np((int)si[i].ssi_signo) ?: "RT",
               si[i].ssi_code, si[i].ssi_int, si[i].ssi_pid == (unsigned)getpid());
}

int main(void)
{
    sigset_t mask;
    sigemptyset(&mask);
    sigaddset(&mask, SIGUSR1);
    sigaddset(&mask, SIGUSR2);
    sigaddset(&mask, SIGRTMIN);
    sigprocmask(SIG_BLOCK, &mask, NULL);
    int fd = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
    show("signalfd", fd >= 0 ? 0 : -1);
    printf("%-40s %d\n", "close-on-exec", !!(fcntl(fd, F_GETFD) & FD_CLOEXEC));
    printf("%-40s %d\n", "non-blocking", !!(fcntl(fd, F_GETFL) & O_NONBLOCK));
    drain(fd, "read nothing pending");

    union sigval v = { .sival_int = 42 };
    sigqueue(getpid(), SIGRTMIN, v);
    v.sival_int = 43;
    sigqueue(getpid(), SIGRTMIN, v);
    kill(getpid(), SIGUSR2);
    raise(SIGUSR1);                 /* tgkill: the thread's own */
    raise(SIGUSR1);                 /* coalesces */
    char small[100];
    show("read into 100 bytes", read(fd, small, sizeof small));
    drain(fd, "read four pending");
    drain(fd, "read again");

    /* A second signalfd() on it changes the mask: SIGUSR1 stays pending. */
    sigset_t only2;
    sigemptyset(&only2);
    sigaddset(&only2, SIGUSR2);
    show("signalfd on it, mask USR2", signalfd(fd, &only2, 0) == fd ? 0 : -1);
    raise(SIGUSR1);
    raise(SIGUSR2);
    drain(fd, "read with the new mask");
    sigset_t pend;
    sigpending(&pend);
    printf("%-40s %d\n", "USR1 still pending", sigismember(&pend, SIGUSR1));
    /* A blocking signalfd finds it at once. */
    int fd2 = signalfd(-1, &mask, 0);
    drain(fd2, "blocking read of a pending signal");

    /* SIGKILL and SIGSTOP in a mask are dropped silently. */
    sigset_t ks;
    sigemptyset(&ks);
    sigaddset(&ks, SIGKILL);
    sigaddset(&ks, SIGSTOP);
    int fd3 = signalfd(-1, &ks, SFD_NONBLOCK);
    show("mask of KILL and STOP", fd3 >= 0 ? 0 : -1);
    drain(fd3, "read it");

    int p[2];
    if (pipe(p)) return 1;
    uint64_t m64 = 1ULL << (SIGUSR1 - 1);
    show("signalfd4 bad flags", syscall(SYS_signalfd4, -1, &m64, 8, 0x1));
    show("signalfd4 mask size 4", syscall(SYS_signalfd4, -1, &m64, 4, 0));
    show("signalfd4 bad mask address", syscall(SYS_signalfd4, -1, (void *)8, 8, 0));
    show("signalfd4 on a pipe", syscall(SYS_signalfd4, p[0], &m64, 8, 0));
    show("signalfd4 on a closed fd", syscall(SYS_signalfd4, 999, &m64, 8, 0));
    show("signalfd4 fd -2", syscall(SYS_signalfd4, -2, &m64, 8, 0));
    show("signalfd on a closed fd", syscall(SYS_signalfd, 999, &m64, 8));
    show("write to a signalfd", write(fd, "x", 1));
    return 0;
}
