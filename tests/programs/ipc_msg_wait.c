/* System V message queues that wait: a receiver blocked until a message
 * comes, one waiting for a type while others arrive, a sender blocked on a
 * full queue until a receiver makes room, a signal ending a wait with
 * EINTR (even under SA_RESTART), and removing the queue ending one with
 * EIDRM. One line per case. */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/msg.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct msg { long type; char text[32]; };

static void say(const char *who, const char *what, long r)
{
    printf("%-7s %-44s %ld %s\n", who, what, r, r < 0 ? strerrorname_np(errno) : "-");
    fflush(stdout);
}

static long put(int q, long type, const char *text)
{
    struct msg m = { type, "" };
    snprintf(m.text, sizeof m.text, "%s", text);
    return msgsnd(q, &m, strlen(text) + 1, 0);
}

static long get(int q, long type, char *text)
{
    struct msg m = { 0, "" };
    long n = msgrcv(q, &m, sizeof m.text, type, 0);
    if (n >= 0) strcpy(text, m.text);
    return n;
}

static void pause_ms(int ms)
{
    struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
    nanosleep(&ts, NULL);
}

static void on_alarm(int sig) { (void)sig; }

int main(void)
{
    int q = msgget(IPC_PRIVATE, IPC_CREAT | 0600), st;
    char text[32];

    pid_t c = fork();
    if (c == 0) {
        long n = get(q, 0, text);
        say("child", "msgrcv waited, got", n);
        printf("child   text %s\n", text);
        fflush(stdout);
        _exit(0);
    }
    pause_ms(200);
    long r = put(q, 1, "hello");
    waitpid(c, &st, 0);                 /* the child prints first */
    say("parent", "msgsnd", r);

    c = fork();
    if (c == 0) {
        long n = get(q, 7, text);
        say("child", "msgrcv of type 7 waited, got", n);
        printf("child   text %s\n", text);
        fflush(stdout);
        _exit(0);
    }
    pause_ms(100);
    say("parent", "msgsnd type 1", put(q, 1, "not for you"));
    pause_ms(100);
    say("parent", "msgsnd type 2", put(q, 2, "nor this"));
    pause_ms(100);
    r = put(q, 7, "yours");
    waitpid(c, &st, 0);
    say("parent", "msgsnd type 7", r);
    say("parent", "left for me", get(q, 0, text) + get(q, 0, text));

    struct msqid_ds ds;
    msgctl(q, IPC_STAT, &ds);
    ds.msg_qbytes = 20;
    msgctl(q, IPC_SET, &ds);
    say("parent", "fill: 10 bytes", put(q, 1, "123456789"));
    say("parent", "fill: 10 more", put(q, 1, "abcdefghi"));
    c = fork();
    if (c == 0) {
        say("child", "msgsnd on a full queue waited, then", put(q, 1, "ABCDEFGHI"));
        _exit(0);
    }
    pause_ms(200);
    msgctl(q, IPC_STAT, &ds);
    say("parent", "queue still holds", (long)ds.msg_qnum);
    r = get(q, 0, text);
    waitpid(c, &st, 0);
    say("parent", "take one", r);
    msgctl(q, IPC_STAT, &ds);
    say("parent", "queue holds", (long)ds.msg_qnum);
    get(q, 0, text), get(q, 0, text);

    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_alarm;
    sa.sa_flags = SA_RESTART;
    sigaction(SIGALRM, &sa, NULL);
    alarm(1);
    say("parent", "msgrcv interrupted by SIGALRM", get(q, 0, text));

    c = fork();
    if (c == 0) {
        say("child", "msgrcv on a queue removed meanwhile", get(q, 0, text));
        _exit(0);
    }
    pause_ms(200);
    r = msgctl(q, IPC_RMID, NULL);
    waitpid(c, &st, 0);
    say("parent", "IPC_RMID", r);
    return 0;
}
