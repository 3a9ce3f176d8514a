/* System V message queues that never wait: messages taken by type (the
 * first, the first of a type, the lowest type up to a bound, the first not
 * of a type), too long for the buffer (E2BIG, or cut with MSG_NOERROR), a
 * full queue with IPC_NOWAIT (EAGAIN), an empty one (ENOMSG), the counts,
 * pids and times IPC_STAT reports (times read against the clock), and the
 * errors of msgget, msgsnd, msgrcv and msgctl. One line per case. */
#define _GNU_SOURCE
#include "ipccheck.h"
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/msg.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

struct msg { long type; char text[64]; };

static long put(int q, long type, const char *text, int flags)
{
    struct msg m = { type, "" };
    snprintf(m.text, sizeof m.text, "%s", text);
    return msgsnd(q, &m, strlen(text) + 1, flags);
}

static void get(int q, long type, int flags, const char *what)
{
    struct msg m = { 0, "" };
    long n = msgrcv(q, &m, sizeof m.text, type, flags);
    show(what, n);
    if (n >= 0) printf("  type %ld text %s\n", m.type, m.text);
}

int main(void)
{
    int q = msgget(IPC_PRIVATE, IPC_CREAT | 0600);
    show("msgget", q >= 0 ? 0 : -1);
    struct msqid_ds ds;
    msgctl(q, IPC_STAT, &ds);
    printf("made: %lu messages, %lu bytes, limit %lu, stime %s rtime %s ctime %s\n", ds.msg_qnum, ds.__msg_cbytes,
           ds.msg_qbytes, when(ds.msg_stime), when(ds.msg_rtime), when(ds.msg_ctime));
    sleep(2);
    put(q, 3, "three", 0);
    put(q, 1, "one", 0);
    put(q, 2, "two", 0);
    put(q, 1, "one again", 0);
    put(q, 5, "five", 0);
    msgctl(q, IPC_STAT, &ds);
    printf("five sent: %lu messages, %lu bytes, stime %s, %s ctime, last sender is me %d\n", ds.msg_qnum,
           ds.__msg_cbytes, when(ds.msg_stime), ds.msg_stime - ds.msg_ctime >= 2 ? "2 s after" : "not after",
           ds.msg_lspid == getpid());
    get(q, 0, 0, "type 0: the first");
    get(q, 1, 0, "type 1: the first of type 1");
    get(q, -2, 0, "type -2: the lowest up to 2");
    get(q, 5, MSG_EXCEPT, "type 5 with MSG_EXCEPT");
    msgctl(q, IPC_STAT, &ds);
    printf("four taken: %lu left, rtime %s, last receiver is me %d\n", ds.msg_qnum, when(ds.msg_rtime),
           ds.msg_lrpid == getpid());
    get(q, 4, IPC_NOWAIT, "type 4, none there, IPC_NOWAIT");
    struct { long type; char text[2]; } small;
    show("too long for the buffer: E2BIG", msgrcv(q, &small, sizeof small.text, 0, 0));
    long n = msgrcv(q, &small, sizeof small.text, 0, MSG_NOERROR);
    show("MSG_NOERROR cuts it", n);
    printf("  type %ld text %.2s\n", small.type, small.text);
    get(q, 0, IPC_NOWAIT, "empty, IPC_NOWAIT");

    /* A small queue fills up. */
    msgctl(q, IPC_STAT, &ds);
    ds.msg_qbytes = 20;
    show("IPC_SET a limit of 20 bytes", msgctl(q, IPC_SET, &ds));
    show("10 bytes", put(q, 1, "123456789", 0));
    show("10 more", put(q, 1, "abcdefghi", 0));
    show("10 more with IPC_NOWAIT: EAGAIN", put(q, 1, "ABCDEFGHI", IPC_NOWAIT));
    show("more than the limit in one, IPC_NOWAIT", put(q, 1, "0123456789012345678901234", IPC_NOWAIT));

    /* Another user, without permission: EACCES at once, though the
     * receive would wait. */
    pid_t child = fork();
    if (child == 0) {
        if (setgid(65534) != 0 || setuid(65534) != 0) {
            printf("%-44s (not root: skipped)\n", "msgrcv without permission");
            fflush(stdout);
            _exit(0);
        }
        get(q, 99, 0, "msgrcv without permission, would wait");
        show("msgsnd without permission", put(q, 1, "x", 0));
        _exit(0);
    }
    waitpid(child, NULL, 0);

    show("msgsnd type 0: EINVAL", put(q, 0, "x", IPC_NOWAIT));
    show("msgsnd bad address: EFAULT", msgsnd(q, (void *)8, 10, IPC_NOWAIT));
    show("msgsnd too big: EINVAL", msgsnd(q, &small, 100000, IPC_NOWAIT));
    show("msgsnd bad id: EINVAL", put(123456, 1, "x", IPC_NOWAIT));
    show("msgrcv bad id: EINVAL", msgrcv(123456, &small, 2, 0, IPC_NOWAIT));
    show("msgrcv negative size: EINVAL", msgrcv(q, &small, (size_t)-1, 0, IPC_NOWAIT));
    show("msgctl bad command", msgctl(q, 9999, &ds));
    show("msgget of a missing key", msgget(0x7a31, 0600));
    show("IPC_RMID", msgctl(q, IPC_RMID, NULL));
    show("msgsnd once removed", put(q, 1, "x", IPC_NOWAIT));
    return 0;
}
