/* System V semaphores that never wait: values set and read one at a time
 * and all at once, operations applied together or not at all, IPC_NOWAIT,
 * SEM_UNDO undone when a process exits, the pid and times IPC_STAT and
 * GETPID report (times read against the clock), and the errors of semget,
 * semop and semctl in Linux's order. One line per case. */
#define _GNU_SOURCE
#include "ipccheck.h"
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/sem.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

union semun { int val; struct semid_ds *buf; unsigned short *array; };

static void values(int id, const char *what)
{
    unsigned short v[3];
    union semun u = { .array = v };
    semctl(id, 0, GETALL, u);
    printf("%-44s %u %u %u\n", what, v[0], v[1], v[2]);
    fflush(stdout);
}

static long op(int id, unsigned short num, short delta, short flags)
{
    struct sembuf b = { num, delta, flags };
    return semop(id, &b, 1);
}

int main(void)
{
    int id = semget(IPC_PRIVATE, 3, IPC_CREAT | 0600);
    show("semget", id >= 0 ? 0 : -1);
    struct semid_ds ds;
    union semun u = { .buf = &ds };
    semctl(id, 0, IPC_STAT, u);
    printf("made: %lu semaphores otime %s ctime %s\n", ds.sem_nsems, when(ds.sem_otime), when(ds.sem_ctime));
    values(id, "values at first");
    unsigned short init[3] = { 1, 2, 3 };
    u.array = init;
    show("SETALL", semctl(id, 0, SETALL, u));
    u.val = 5;
    show("SETVAL 2 to 5", semctl(id, 2, SETVAL, u));
    show("GETVAL 2", semctl(id, 2, GETVAL));
    values(id, "values");
    sleep(2);
    show("semop +1 on 0", op(id, 0, 1, 0));
    u.buf = &ds;
    semctl(id, 0, IPC_STAT, u);
    printf("otime %s, %s ctime\n", when(ds.sem_otime), ds.sem_otime - ds.sem_ctime >= 2 ? "2 s after" : "not after");
    show("GETPID is me", semctl(id, 0, GETPID) == getpid());
    struct sembuf two[2] = { { 0, -2, 0 }, { 1, -3, IPC_NOWAIT } };
    show("two ops, the second cannot: EAGAIN", semop(id, two, 2));
    values(id, "none applied");
    two[1].sem_op = -2;
    show("two ops that can", semop(id, two, 2));
    values(id, "both applied");
    show("-1 on 0 with IPC_NOWAIT", op(id, 0, -1, IPC_NOWAIT));
    show("wait-for-zero on 0, IPC_NOWAIT", op(id, 0, 0, IPC_NOWAIT));
    show("wait-for-zero on 2, IPC_NOWAIT", op(id, 2, 0, IPC_NOWAIT));
    struct sembuf same[2] = { { 2, -4, 0 }, { 2, -1, 0 } };
    show("the same semaphore twice", semop(id, same, 2));
    values(id, "after it");

    pid_t child = fork();
    if (child == 0) {
        op(id, 1, 5, SEM_UNDO);
        values(id, "child: +5 on 1 with SEM_UNDO");
        _exit(0);
    }
    waitpid(child, NULL, 0);
    values(id, "its exit undid it");

    /* Another user, without permission: EACCES at once, though the
     * operation would wait (the permission comes first). */
    child = fork();
    if (child == 0) {
        if (setgid(65534) != 0 || setuid(65534) != 0) {
            printf("%-44s (not root: skipped)\n", "semop without permission");
            fflush(stdout);
            _exit(0);
        }
        show("semop without permission, would wait", op(id, 0, -1, 0));
        show("semctl GETVAL without permission", semctl(id, 0, GETVAL));
        _exit(0);
    }
    waitpid(child, NULL, 0);

    u.val = 32767;
    semctl(id, 0, SETVAL, u);
    show("+1 past the largest value: ERANGE", op(id, 0, 1, 0));
    show("GETNCNT, no one waits", semctl(id, 0, GETNCNT));
    show("GETZCNT, no one waits", semctl(id, 0, GETZCNT));
    show("semop on semaphore 3 of 3: EFBIG", op(id, 3, 1, 0));
    show("semop with no operations: EINVAL", semop(id, two, 0));
    struct sembuf many[600];
    memset(many, 0, sizeof many);
    show("semop with 600 operations: E2BIG", semop(id, many, 600));
    show("semop bad address: EFAULT", semop(id, (void *)8, 1));
    show("semop bad id: EINVAL", op(123456, 0, 1, 0));
    show("semop negative id: EINVAL", op(-1, 0, 1, 0));
    struct timespec bad = { 0, 2000000000 };
    struct sembuf one = { 0, -1, 0 };
    show("semtimedop bad timeout: EINVAL", semtimedop(id, &one, 1, &bad));
    show("semtimedop timeout address bad: EFAULT", semtimedop(id, &one, 1, (void *)8));
    show("semctl GETVAL out of range", semctl(id, 3, GETVAL));
    show("semctl bad command", semctl(id, 0, 9999));
    u.val = 40000;
    show("SETVAL 40000: ERANGE", semctl(id, 0, SETVAL, u));
    show("semget 0 semaphores, new", semget(IPC_PRIVATE, 0, IPC_CREAT | 0600));
    show("semget of a missing key", semget(0x7a21, 1, 0600));
    int k = semget(0x7a22, 2, IPC_CREAT | IPC_EXCL | 0600);
    show("semget the key, more semaphores", semget(0x7a22, 3, 0600));
    show("semget the key, fewer", semget(0x7a22, 1, 0600) == k ? 0 : -1);
    semctl(k, 0, IPC_RMID);
    show("IPC_RMID", semctl(id, 0, IPC_RMID));
    show("semop once removed", op(id, 0, 1, 0));
    return 0;
}
