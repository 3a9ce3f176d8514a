/* CPU time across processes and threads: what a child used is reported by
 * wait4, by its SIGCHLD (si_utime + si_stime, in ticks) and, once waited
 * for, by getrusage(RUSAGE_CHILDREN) and times(), the same figure; the
 * process's own CPU clock never goes backwards while hundreds of its
 * threads come and go. Prints one line per check (the same natively and
 * under dsim); with --positive it also requires the child's time to be
 * non-zero (under dsim every step costs CPU time; natively a short child
 * may round to 0) and prints the SIGCHLD's ticks. */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/times.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int bad;

static void check(const char *what, int ok)
{
    printf("%s: %s\n", what, ok ? "ok" : "WRONG");
    bad += !ok;
}

static volatile long chld_ticks = -1;

static void on_chld(int sig, siginfo_t *si, void *ctx)
{
    (void)sig, (void)ctx;
    chld_ticks = (long)(si->si_utime + si->si_stime);
}

static long long us(struct timeval tv) { return tv.tv_sec * 1000000LL + tv.tv_usec; }

static long long cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void *briefly(void *arg)
{
    for (int i = 0; i < 5; i++) getppid();
    return arg;
}

int main(int argc, char **argv)
{
    int positive = argc > 1 && !strcmp(argv[1], "--positive");
    struct rusage before, waited, after;
    struct sigaction sa = { .sa_sigaction = on_chld, .sa_flags = SA_SIGINFO | SA_RESTART };
    sigemptyset(&sa.sa_mask);
    sigaction(SIGCHLD, &sa, NULL);
    getrusage(RUSAGE_CHILDREN, &before);
    check("no children's time before any child", us(before.ru_utime) + us(before.ru_stime) == 0);
    pid_t pid = fork();
    if (pid == 0) {
        for (int i = 0; i < 20000; i++) getppid();
        _exit(0);
    }
    int status;
    if (wait4(pid, &status, 0, &waited) != pid) { perror("wait4"); return 2; }
    getrusage(RUSAGE_CHILDREN, &after);
    long long child = us(waited.ru_utime) + us(waited.ru_stime);
    check("RUSAGE_CHILDREN = what wait4 reported", us(after.ru_utime) + us(after.ru_stime) == child);
    struct tms tm;
    times(&tm);
    long hz = sysconf(_SC_CLK_TCK);
    check("times() counts the child like getrusage",
          (long long)(tm.tms_cutime + tm.tms_cstime) * 1000000 / hz <= child + 2 * 1000000 / hz);
    long tick_us = 1000000 / hz, ticks = chld_ticks;
    check("SIGCHLD's times = what wait4 reported, to a tick",
          ticks >= 0 && ticks * tick_us <= child + 2 * tick_us && ticks * tick_us + 2 * tick_us >= child);
    if (positive) check("the child used some CPU time", child > 0);
    if (positive) printf("SIGCHLD ticks %ld\n", ticks);
    /* A second child, its SIGCHLD read from a signalfd. */
    sigset_t chld;
    sigemptyset(&chld);
    sigaddset(&chld, SIGCHLD);
    sigprocmask(SIG_BLOCK, &chld, NULL);
    int sfd = signalfd(-1, &chld, SFD_CLOEXEC);
    if ((pid = fork()) == 0) {
        for (int i = 0; i < 10000; i++) getppid();
        _exit(0);
    }
    struct signalfd_siginfo r;
    if (sfd < 0 || read(sfd, &r, sizeof r) != sizeof r) { perror("signalfd"); return 2; }
    if (wait4(pid, &status, 0, &waited) != pid) { perror("wait4"); return 2; }
    child = us(waited.ru_utime) + us(waited.ru_stime);
    ticks = (long)(r.ssi_utime + r.ssi_stime);
    check("a signalfd's SIGCHLD times = what wait4 reported, to a tick",
          ticks * tick_us <= child + 2 * tick_us && ticks * tick_us + 2 * tick_us >= child);
    if (positive) printf("signalfd SIGCHLD ticks %ld\n", ticks);
    sigprocmask(SIG_UNBLOCK, &chld, NULL);
    long long last = cpu_ns();
    int monotonic = 1;
    for (int i = 0; i < 600; i++) {
        pthread_t th;
        pthread_create(&th, NULL, briefly, NULL);
        pthread_join(th, NULL);
        long long now = cpu_ns();
        if (now < last) monotonic = 0;
        last = now;
    }
    check("the CPU clock never went back as 600 threads came and went", monotonic);
    return bad != 0;
}
