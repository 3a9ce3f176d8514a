/* The siginfo of the itimers' signals: alarm and ITIMER_REAL's SIGALRM,
 * ITIMER_VIRTUAL's SIGVTALRM and ITIMER_PROF's SIGPROF come from the
 * kernel (SI_KERNEL, pid 0, uid 0), not from a kill (SI_USER). Then a kill
 * of its own SIGALRM, which says SI_USER and the sender's pid. The same
 * lines natively and under dsim. */
#include <signal.h>
#include <stdio.h>
#include <sys/signalfd.h>
#include <sys/time.h>
#include <unistd.h>

static volatile sig_atomic_t fired, code, pid, uid;

static void caught(int sig, siginfo_t *si, void *ctx)
{
    (void)sig, (void)ctx;
    code = si->si_code, pid = si->si_pid, uid = si->si_uid;
    fired = 1;
}

static void show(const char *what)
{
    printf("%s: %s pid %s uid %d\n", what, code == SI_KERNEL ? "SI_KERNEL" : code == SI_USER ? "SI_USER" : "other",
           pid == 0 ? "0" : pid == getpid() ? "self" : "other", (int)uid);
    fflush(stdout);
    fired = 0;
}

/* Burns CPU time, user and system, until the signal comes. */
static void spin(void)
{
    while (!fired) {
        for (volatile int i = 0; i < 10000; i++) {}
        getppid();
    }
}

int main(void)
{
    struct sigaction sa = { .sa_sigaction = caught, .sa_flags = SA_SIGINFO };
    sigemptyset(&sa.sa_mask);
    sigaction(SIGALRM, &sa, NULL);
    sigaction(SIGVTALRM, &sa, NULL);
    sigaction(SIGPROF, &sa, NULL);
    alarm(1);
    while (!fired) pause();
    show("alarm");
    struct itimerval it = { { 0, 0 }, { 0, 20000 } };
    setitimer(ITIMER_REAL, &it, NULL);
    while (!fired) pause();
    show("ITIMER_REAL");
    setitimer(ITIMER_VIRTUAL, &it, NULL);
    spin();
    show("ITIMER_VIRTUAL");
    setitimer(ITIMER_PROF, &it, NULL);
    spin();
    show("ITIMER_PROF");
    kill(getpid(), SIGALRM);
    while (!fired) pause();
    show("kill");
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGALRM);
    sigprocmask(SIG_BLOCK, &set, NULL);
    setitimer(ITIMER_REAL, &it, NULL);
    siginfo_t si;
    if (sigwaitinfo(&set, &si) != SIGALRM) return 1;
    code = si.si_code, pid = si.si_pid, uid = si.si_uid;
    show("sigwaitinfo");
    int sfd = signalfd(-1, &set, SFD_CLOEXEC);
    struct signalfd_siginfo r;
    setitimer(ITIMER_REAL, &it, NULL);
    if (sfd < 0 || read(sfd, &r, sizeof r) != sizeof r || r.ssi_signo != SIGALRM) return 1;
    code = r.ssi_code, pid = (int)r.ssi_pid, uid = (int)r.ssi_uid;
    show("signalfd");
    return 0;
}
