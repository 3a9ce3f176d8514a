/* Two processes over System V IPC.
 *
 * `ipc_pingpong pingpong N`: a strict ping-pong. The parent sends "ping I"
 * as a message and posts semaphore 0; the child waits on it, answers
 * "pong I" and posts semaphore 1, which the parent waits on. The output is
 * the same every time, natively and under dsim.
 *
 * `ipc_pingpong race N`: both processes take a semaphore used as a lock N
 * times each, and under it take the counter message from the queue, print
 * who saw which value, and put the counter back one higher. Which process
 * gets the lock each time is the scheduler's choice: under dsim, the
 * seed's. The last line is always "final 2N". */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/msg.h>
#include <sys/sem.h>
#include <sys/wait.h>
#include <unistd.h>

struct msg { long type; char text[32]; };

static void op(int sem, unsigned short num, short delta)
{
    struct sembuf b = { num, delta, 0 };
    if (semop(sem, &b, 1) != 0) { perror("semop"); exit(1); }
}

static void put(int q, long type, const char *fmt, long v)
{
    struct msg m = { type, "" };
    snprintf(m.text, sizeof m.text, fmt, v);
    if (msgsnd(q, &m, strlen(m.text) + 1, 0) != 0) { perror("msgsnd"); exit(1); }
}

static void get(int q, long type, struct msg *m)
{
    if (msgrcv(q, m, sizeof m->text, type, 0) < 0) { perror("msgrcv"); exit(1); }
}

static void pingpong(int sem, int q, int n)
{
    struct msg m;
    pid_t c = fork();
    if (c == 0) {
        for (int i = 1; i <= n; i++) {
            op(sem, 0, -1);
            get(q, 1, &m);
            printf("child got %s\n", m.text);
            fflush(stdout);
            put(q, 2, "pong %ld", i);
            op(sem, 1, 1);
        }
        _exit(0);
    }
    for (int i = 1; i <= n; i++) {
        put(q, 1, "ping %ld", i);
        op(sem, 0, 1);
        op(sem, 1, -1);
        get(q, 2, &m);
        printf("parent got %s\n", m.text);
        fflush(stdout);
    }
    waitpid(c, NULL, 0);
}

static void race_part(const char *who, int sem, int q, int n)
{
    struct msg m;
    for (int i = 0; i < n; i++) {
        op(sem, 2, -1);
        get(q, 3, &m);
        long v = atol(m.text);
        printf("%s saw %ld\n", who, v);
        fflush(stdout);
        put(q, 3, "%ld", v + 1);
        op(sem, 2, 1);
    }
}

static void race(int sem, int q, int n)
{
    put(q, 3, "%ld", 0);
    op(sem, 2, 1);
    pid_t c = fork();
    if (c == 0) {
        race_part("child", sem, q, n);
        _exit(0);
    }
    race_part("parent", sem, q, n);
    waitpid(c, NULL, 0);
    struct msg m;
    get(q, 3, &m);
    printf("final %s\n", m.text);
}

int main(int argc, char **argv)
{
    if (argc != 3) return 2;
    int n = atoi(argv[2]);
    int sem = semget(IPC_PRIVATE, 3, IPC_CREAT | 0600), q = msgget(IPC_PRIVATE, IPC_CREAT | 0600);
    if (sem < 0 || q < 0) { perror("get"); return 1; }
    if (!strcmp(argv[1], "pingpong")) pingpong(sem, q, n);
    else race(sem, q, n);
    semctl(sem, 0, IPC_RMID);
    msgctl(q, IPC_RMID, NULL);
    return 0;
}
