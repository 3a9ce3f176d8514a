/* A process tree across a warm start's point (t_warm_tree.sh): a parent
 * and two children it forked before the point (1 s in), each at a call
 * there. After it, what a parent and its children see of each other must
 * be what Linux gives, copied or not: child A prints whether its parent's
 * pid is its parent's (getppid, /proc/self/stat, /proc/self/status), draws 4 random bytes and
 * exits 7; the parent waits for it (wait4, blocked across the point), its
 * SIGCHLD handler logs the siginfo; WNOHANG finds B still running; the
 * parent kills B and collects it with waitid by process group; a child C forked after the
 * point exits 3 and is collected with wait4 and a rusage; then no child is
 * left (ECHILD). The parent prints all of it at the end. With "held", the
 * parent made a pipe before its forks, whose ends all three keep: it
 * writes "hi" before the point, A writes "A" after it, the parent reads
 * both; with "orphan", a grandchild orphaned (init reaps it) before it all;
 * with "pair", a socket pair instead, which A writes "A" to after
 * the point (a pair with bytes at the point is refused); with "own", the
 * parent and A each open the program's file after the fork. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t nchld;
static volatile int chld_code[8], chld_pid[8], chld_status[8], chld_uid[8];

static void on_chld(int sig, siginfo_t *si, void *ctx)
{
    (void)sig, (void)ctx;
    if (nchld < 8) {
        chld_code[nchld] = si->si_code;
        chld_pid[nchld] = si->si_pid;
        chld_status[nchld] = si->si_status;
        chld_uid[nchld] = (int)si->si_uid;
    }
    nchld++;
}

static void sleep_ms(long ms)
{
    struct timespec ts = { ms / 1000, ms % 1000 * 1000000 };
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {}
}

/* Field 4 of /proc/self/stat, and the PPid line of /proc/self/status. */
static void proc_ppids(int *stat_ppid, int *status_ppid)
{
    char buf[4096], *p;
    FILE *f = fopen("/proc/self/stat", "r");
    *stat_ppid = *status_ppid = -1;
    if (f && fgets(buf, sizeof buf, f) && (p = strrchr(buf, ')'))) sscanf(p + 2, "%*c %d", stat_ppid);
    if (f) fclose(f);
    f = fopen("/proc/self/status", "r");
    while (f && fgets(buf, sizeof buf, f))
        if (sscanf(buf, "PPid: %d", status_ppid) == 1) break;
    if (f) fclose(f);
}

int main(int argc, char **argv)
{
    int held[2] = { -1, -1 };
    const char *mode = argc > 1 ? argv[1] : "";
    bool own = !strcmp(mode, "own"), holds = !strcmp(mode, "held"), pair = !strcmp(mode, "pair");
    if (holds && pipe(held) != 0) return 1;                    /* every process keeps both ends */
    if (pair && socketpair(AF_UNIX, SOCK_STREAM, 0, held) != 0) return 1;
    struct stat held_st[2] = { 0 };
    for (int k = 0; k < 2 && (holds || pair); k++) fstat(held[k], &held_st[k]);   /* the inodes at the point, */
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_chld;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigaction(SIGCHLD, &sa, NULL);
    if (!strcmp(mode, "orphan")) {                  /* a grandchild orphaned and gone before the point */
        pid_t x = fork();
        if (x == 0) {
            if (fork() == 0) _exit(0);
            _exit(0);
        }
        waitpid(x, NULL, 0);
        sleep_ms(100);
    }
    pid_t parent = getpid();
    printf("parent %d\n", (int)parent);
    fflush(stdout);
    pid_t a = fork();
    if (a == 0) {
        if (own) open(argv[0], O_RDONLY);           /* its own open file past fd 2 */
        sleep_ms(2000);                             /* across the point */
        int sp, stp;
        proc_ppids(&sp, &stp);
        unsigned char r[4];
        if (getrandom(r, sizeof r, 0) != sizeof r) return 1;
        if ((holds || pair) && write(held[1], "A", 1) != 1) return 1;
        printf("A getppid %s stat %s status %s random %02x%02x%02x%02x\n", getppid() == parent ? "parent" : "other",
               sp == parent ? "parent" : "other", stp == parent ? "parent" : "other", r[0], r[1], r[2], r[3]);
        fflush(stdout);
        _exit(7);
    }
    pid_t b = fork();
    if (b == 0) {
        for (;;) pause();
    }
    if (own) open(argv[0], O_RDONLY);               /* the parent's own */
    if (holds && write(held[1], "hi", 2) != 2) return 1;       /* read after the point */
    int st = 0;
    pid_t none = waitpid(-1, &st, WNOHANG);
    sleep_ms(500);
    pid_t got = waitpid(a, &st, 0);                  /* blocked across the point */
    int code_a = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    char got_held[4] = "";
    if (holds && read(held[0], got_held, 3) != 3) return 1;
    if (pair && read(held[0], got_held, 1) != 1) return 1;
    pid_t none2 = waitpid(-1, &st, WNOHANG);         /* B still runs */
    kill(b, SIGKILL);
    siginfo_t si;
    memset(&si, 0, sizeof si);
    int wr = waitid(P_PGID, (id_t)getpgid(0), &si, WEXITED);   /* B, by its process group */
    pid_t c = fork();
    if (c == 0) {
        printf("C getppid %s\n", getppid() == parent ? "parent" : "other");
        fflush(stdout);
        _exit(3);
    }
    struct rusage ru;
    pid_t got_c = wait4(-1, &st, 0, &ru);
    int code_c = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    pid_t last = waitpid(-1, NULL, 0);
    int last_errno = errno;
    printf("before the point WNOHANG %d\n", (int)none);
    printf("waited A %d code %d\n", (int)(got == a), code_a);
    printf("then WNOHANG %d\n", (int)none2);
    printf("waitid B %d pid %d code %s status %d\n", wr, (int)(si.si_pid == b), si.si_code == CLD_KILLED ? "killed" : "?",
           si.si_status);
    printf("waited C %d code %d\n", (int)(got_c == c), code_c);
    printf("then %d %s\n", (int)last, last_errno == ECHILD ? "ECHILD" : "?");
    if (holds || pair) {
        struct stat now[2] = { 0 };
        for (int k = 0; k < 2; k++) fstat(held[k], &now[k]);                   /* the same after it */
        printf("held read %s, inodes kept %d %d\n", got_held, now[0].st_ino == held_st[0].st_ino,
               now[1].st_ino == held_st[1].st_ino);
    }
    for (int i = 0; i < nchld && i < 8; i++)
        printf("SIGCHLD %d: code %d pid %s status %d uid %d\n", i, chld_code[i],
               chld_pid[i] == a ? "A" : chld_pid[i] == b ? "B" : chld_pid[i] == c ? "C" : "?", chld_status[i], chld_uid[i]);
    return 0;
}
