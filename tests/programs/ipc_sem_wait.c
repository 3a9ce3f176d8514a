/* System V semaphores that wait: a process blocked in semop until another
 * raises the value (GETNCNT counts it meanwhile), or until it is zero
 * (GETZCNT), or until both of two semaphores can be taken at once;
 * semtimedop's timeout (EAGAIN); a signal ends the wait with EINTR, even
 * under SA_RESTART; removing the set ends it with EIDRM. One line per
 * case. */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/sem.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

union semun { int val; struct semid_ds *buf; unsigned short *array; };

static void say(const char *who, const char *what, long r)
{
    printf("%-7s %-44s %ld %s\n", who, what, r, r < 0 ? strerrorname_np(errno) : "-");
    fflush(stdout);
}

static long op(int id, unsigned short num, short delta, short flags)
{
    struct sembuf b = { num, delta, flags };
    return semop(id, &b, 1);
}

static void pause_ms(int ms)
{
    struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
    nanosleep(&ts, NULL);
}

static double since(const struct timespec *t0)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)(t.tv_sec - t0->tv_sec) + (t.tv_nsec - t0->tv_nsec) / 1e9;
}

static void on_alarm(int sig) { (void)sig; }

static void setval(int id, int num, int v)
{
    union semun u = { .val = v };
    semctl(id, num, SETVAL, u);
}

int main(void)
{
    int id = semget(IPC_PRIVATE, 2, IPC_CREAT | 0600), st;

    /* Waits until the parent raises it. */
    pid_t c = fork();
    if (c == 0) {
        say("child", "semop -1 waits, then", op(id, 0, -1, 0));
        _exit(0);
    }
    pause_ms(200);
    say("parent", "GETNCNT while the child waits", semctl(id, 0, GETNCNT));
    say("parent", "GETZCNT", semctl(id, 0, GETZCNT));
    long r = op(id, 0, 1, 0);
    waitpid(c, &st, 0);                 /* the child prints first */
    say("parent", "+1", r);
    say("parent", "value after the child took it", semctl(id, 0, GETVAL));

    /* Waits for zero. */
    setval(id, 1, 2);
    c = fork();
    if (c == 0) {
        say("child", "wait for zero, then", op(id, 1, 0, 0));
        _exit(0);
    }
    pause_ms(200);
    say("parent", "GETZCNT while the child waits", semctl(id, 1, GETZCNT));
    say("parent", "-1 (not zero yet)", op(id, 1, -1, 0));
    pause_ms(200);
    say("parent", "child still waiting: GETZCNT", semctl(id, 1, GETZCNT));
    r = op(id, 1, -1, 0);
    waitpid(c, &st, 0);
    say("parent", "-1 (zero)", r);

    /* Two at once: only when both can go. */
    c = fork();
    if (c == 0) {
        struct sembuf both[2] = { { 0, -1, 0 }, { 1, -1, 0 } };
        say("child", "-1 on both, then", semop(id, both, 2));
        _exit(0);
    }
    pause_ms(100);
    say("parent", "+1 on 0", op(id, 0, 1, 0));
    pause_ms(200);
    say("parent", "still waiting: value of 0", semctl(id, 0, GETVAL));
    say("parent", "GETNCNT of 1 (the one it waits on)", semctl(id, 1, GETNCNT));
    r = op(id, 1, 1, 0);
    waitpid(c, &st, 0);
    say("parent", "+1 on 1", r);
    unsigned short v[2];
    union semun u = { .array = v };
    semctl(id, 0, GETALL, u);
    say("parent", "both taken", v[0] + v[1]);

    /* A timeout. */
    struct timespec t0, to = { 0, 300 * 1000000 };
    struct sembuf one = { 0, -1, 0 };
    clock_gettime(CLOCK_MONOTONIC, &t0);
    say("parent", "semtimedop 300 ms", semtimedop(id, &one, 1, &to));
    say("parent", "  waited at least 300 ms", since(&t0) >= 0.3);

    /* A signal: EINTR, even under SA_RESTART. */
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_alarm;
    sa.sa_flags = SA_RESTART;
    sigaction(SIGALRM, &sa, NULL);
    alarm(1);
    say("parent", "semop interrupted by SIGALRM", op(id, 0, -1, 0));

    /* Removed while a process waits: EIDRM. */
    c = fork();
    if (c == 0) {
        say("child", "semop on a set removed meanwhile", op(id, 0, -1, 0));
        _exit(0);
    }
    pause_ms(200);
    r = semctl(id, 0, IPC_RMID);
    waitpid(c, &st, 0);
    say("parent", "IPC_RMID", r);
    return 0;
}
