/* The signals a program gets from outside its own calls, read through a
 * signalfd: a POSIX timer's (SI_TIMER, its value), SIGCHLD of a child
 * that exits (CLD_EXITED, its pid and status), a kill from another
 * process (SI_USER, the sender's pid), SIGPIPE of a write to a pipe with
 * no reader (SI_USER, from itself), and alarm's SIGALRM and an interval
 * timer's (the signal only: Linux says SI_KERNEL, dsim sends it as
 * SI_USER). Each is waited for with poll, then read. One line per case. */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int fd;

static struct signalfd_siginfo next(void)
{
    struct pollfd p = { fd, POLLIN, 0 };
    struct signalfd_siginfo si;
    memset(&si, 0, sizeof si);
    if (poll(&p, 1, 5000) != 1 || read(fd, &si, sizeof si) != sizeof si) printf("nothing came\n");
    return si;
}

int main(void)
{
    sigset_t mask;
    sigemptyset(&mask);
    int sigs[] = { SIGALRM, SIGCHLD, SIGUSR1, SIGPIPE, SIGRTMIN + 1 };
    for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++) sigaddset(&mask, sigs[i]);
    sigprocmask(SIG_BLOCK, &mask, NULL);
    fd = signalfd(-1, &mask, SFD_CLOEXEC);

    timer_t tid;
    struct sigevent sev = { .sigev_notify = SIGEV_SIGNAL, .sigev_signo = SIGRTMIN + 1 };
    sev.sigev_value.sival_int = 7;
    timer_create(CLOCK_MONOTONIC, &sev, &tid);
    struct itimerspec its = { { 0, 0 }, { 0, 20 * 1000000 } };
    timer_settime(tid, 0, &its, NULL);
    struct signalfd_siginfo si = next();
    printf("posix timer: signo RTMIN+%d code %d int %d overrun %u\n", (int)si.ssi_signo - SIGRTMIN, si.ssi_code,
           si.ssi_int, si.ssi_overrun);

    pid_t child = fork();
    if (child == 0) _exit(3);
    si = next();
    printf("child exit: signo %s code %d pid is the child %d status %d\n", sigabbrev_np((int)si.ssi_signo),
           si.ssi_code, si.ssi_pid == (unsigned)child, si.ssi_status);
    waitpid(child, NULL, 0);

    child = fork();
    if (child == 0) {
        kill(getppid(), SIGUSR1);
        _exit(0);
    }
    si = next();
    printf("kill from a child: signo %s code %d pid is the child %d uid %d\n", sigabbrev_np((int)si.ssi_signo),
           si.ssi_code, si.ssi_pid == (unsigned)child, si.ssi_uid == getuid());
    si = next();
    printf("then its exit: signo %s code %d\n", sigabbrev_np((int)si.ssi_signo), si.ssi_code);
    waitpid(child, NULL, 0);

    int p[2];
    if (pipe(p)) return 1;
    close(p[0]);
    ssize_t w = write(p[1], "x", 1);
    printf("write to a pipe without reader: %zd %s\n", w, w < 0 ? strerrorname_np(errno) : "-");
    si = next();
    printf("  signo %s code %d pid is self %d\n", sigabbrev_np((int)si.ssi_signo), si.ssi_code,
           si.ssi_pid == (unsigned)getpid());

    alarm(1);
    si = next();
    printf("alarm: signo %s\n", sigabbrev_np((int)si.ssi_signo));
    struct itimerval it = { { 0, 0 }, { 0, 50000 } };
    setitimer(ITIMER_REAL, &it, NULL);
    si = next();
    printf("interval timer: signo %s\n", sigabbrev_np((int)si.ssi_signo));
    return 0;
}
