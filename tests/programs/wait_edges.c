/* waitid and wait4 at their edges: options the kernel refuses, waits for
 * stops only (job control: none come), waits on a process group (the
 * caller's, another, one with only live members while a zombie of another
 * group waits), and P_PIDFD. One line per case. */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef P_PIDFD
#define P_PIDFD 3
#endif

static void show(const char *what, long r)
{
    printf("%-44s %ld %s\n", what, r, r < 0 ? strerrorname_np(errno) : "-");
}

static pid_t child(int exit_code, int in_own_group, int pipe_to_wait_on)
{
    pid_t pid = fork();
    if (pid == 0) {
        if (in_own_group) setpgid(0, 0);
        if (pipe_to_wait_on >= 0) {
            char c;
            if (read(pipe_to_wait_on, &c, 1) < 0) {}
        }
        _exit(exit_code);
    }
    if (in_own_group) setpgid(pid, pid);
    return pid;
}

int main(void)
{
    siginfo_t si;
    show("waitid no children", waitid(P_ALL, 0, &si, WEXITED | WNOHANG));
    int hold[2];
    if (pipe(hold)) return 1;
    pid_t a = child(3, 0, hold[0]);     /* alive until we write */
    show("waitid P_ALL WNOHANG only", waitid(P_ALL, 0, &si, WNOHANG));
    show("waitid bad option bit", waitid(P_ALL, 0, &si, WEXITED | 0x100));
    show("waitid bad idtype", waitid((idtype_t)9, 0, &si, WEXITED));
    show("waitid P_PID 0", waitid(P_PID, 0, &si, WEXITED));
    show("waitid P_PGID negative", waitid(P_PGID, -5, &si, WEXITED));
    memset(&si, 0, sizeof si);
    show("waitid WSTOPPED WNOHANG", waitid(P_ALL, 0, &si, WSTOPPED | WNOHANG));
    printf("%-44s %d\n", "  no stopped child reported", si.si_pid == 0);
    if (write(hold[1], "x", 1) != 1) return 1;
    show("waitid WEXITED|WSTOPPED", waitid(P_PID, a, &si, WEXITED | WSTOPPED));
    printf("%-44s %d %d\n", "  exit code", si.si_code == CLD_EXITED, si.si_status);

    /* Groups: b in its own group, waiting on a pipe; c in ours, exits. */
    int p[2];
    if (pipe(p)) return 1;
    pid_t b = child(4, 1, p[0]);
    pid_t c = child(5, 0, -1);
    show("wait4 on b's group, b alive, WNOHANG", wait4(-b, NULL, WNOHANG, NULL));
    int status = 0;
    show("wait4 on our own group (0)", wait4(0, &status, 0, NULL) == c ? 1 : -1);
    printf("%-44s %d\n", "  status", WEXITSTATUS(status));
    if (write(p[1], "x", 1) != 1) return 1;
    memset(&si, 0, sizeof si);
    show("waitid P_PGID b's group", waitid(P_PGID, b, &si, WEXITED));
    printf("%-44s %d %d\n", "  it was b", si.si_pid == b, si.si_status);

    /* A pidfd from clone(CLONE_PIDFD). */
    int pidfd = -1;
    pid_t d = (pid_t)syscall(SYS_clone, CLONE_PIDFD | SIGCHLD, 0, &pidfd, 0, 0);
    if (d == 0) _exit(6);
    memset(&si, 0, sizeof si);
    show("waitid P_PIDFD", waitid(P_PIDFD, pidfd, &si, WEXITED));
    printf("%-44s %d %d\n", "  it was d", si.si_pid == d, si.si_status);
    show("waitid P_PIDFD bad fd", waitid(P_PIDFD, 999, &si, WEXITED));
    show("waitid no children left", waitid(P_ALL, 0, &si, WEXITED));
    return 0;
}
