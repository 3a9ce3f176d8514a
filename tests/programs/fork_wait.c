/* fork_wait: fork and the wait family.
 *
 *  1. Five children, each doing a few syscalls, exit with 1..5. They are
 *     reaped with waitpid(pid) (the one exiting 3), waitpid(-1) (two of them)
 *     and waitid(P_ALL, WEXITED) (the rest). The exit codes are printed
 *     sorted, so the output does not depend on the order of exits.
 *  2. waitpid(pid, WNOHANG) returns 0 while a child is held on a pipe, and
 *     waitid(WNOHANG) reports no child (si_pid 0); closing the pipe lets it
 *     exit.
 *  3. With no children left, waitpid(-1) fails with ECHILD.
 *  4. A child killed by SIGKILL is reported WIFSIGNALED with WTERMSIG 9.
 *  5. waitid(P_PID, WNOWAIT) leaves the child waitable.
 *
 * Every line is deterministic natively; the last line is "ok" and the exit
 * status is 0 only if every check passed. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "selfcheck.h"

static void die(const char *what)
{
	printf("FATAL %s: %s\n", what, strerror(errno));
	fflush(stdout);
	exit(99);
}

static pid_t xfork(void)
{
	fflush(stdout);
	pid_t pid = fork();
	if (pid < 0)
		die("fork");
	return pid;
}

/* A child's busywork: a few syscalls before exiting. */
static void child_work(int code)
{
	char buf[64];
	int fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (fd >= 0) {
		int n = snprintf(buf, sizeof buf, "child %d pid %d\n", code, (int)getpid());
		if (write(fd, buf, (size_t)n) != n)
			_exit(100);
		close(fd);
	}
	struct stat st;
	if (stat("/", &st) != 0)
		_exit(101);
	if (getppid() <= 0)
		_exit(102);
	for (int i = 0; i < code; i++)
		sched_yield();
	_exit(code);
}

static int cmp_int(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

int main(void)
{
	/* 1. five children */
	pid_t pids[5];
	for (int i = 0; i < 5; i++) {
		pid_t p = xfork();
		if (p == 0)
			child_work(i + 1);
		pids[i] = p;
	}
	int codes[5], n = 0, status;

	/* waitpid(pid) for the child exiting 3 */
	pid_t w = waitpid(pids[2], &status, 0);
	CHECK(w == pids[2], "waitpid(pid) returned %d, not %d", (int)w, (int)pids[2]);
	CHECK(WIFEXITED(status), "waitpid(pid): not exited (0x%x)", status);
	CHECK(WEXITSTATUS(status) == 3, "waitpid(pid): code %d", WEXITSTATUS(status));
	codes[n++] = WEXITSTATUS(status);
	printf("waitpid(pid) got code %d\n", WEXITSTATUS(status));

	/* waitpid(-1) twice */
	for (int k = 0; k < 2; k++) {
		w = waitpid(-1, &status, 0);
		if (w < 0)
			die("waitpid(-1)");
		int found = 0;
		for (int i = 0; i < 5; i++)
			found |= pids[i] == w;
		CHECK(found && w != pids[2], "waitpid(-1) returned unknown pid %d", (int)w);
		CHECK(WIFEXITED(status), "waitpid(-1): not exited");
		codes[n++] = WEXITSTATUS(status);
	}
	/* waitid(P_ALL, WEXITED) for the rest */
	for (int k = 0; k < 2; k++) {
		siginfo_t si;
		memset(&si, 0, sizeof si);
		if (waitid(P_ALL, 0, &si, WEXITED) != 0)
			die("waitid(P_ALL)");
		CHECK(si.si_signo == SIGCHLD, "waitid: si_signo %d", si.si_signo);
		CHECK(si.si_code == CLD_EXITED, "waitid: si_code %d", si.si_code);
		CHECK(si.si_pid > 0, "waitid: si_pid %d", (int)si.si_pid);
		codes[n++] = si.si_status;
	}
	qsort(codes, 5, sizeof codes[0], cmp_int);
	printf("exit codes:");
	for (int i = 0; i < 5; i++)
		printf(" %d", codes[i]);
	putchar('\n');
	for (int i = 0; i < 5; i++)
		CHECK(codes[i] == i + 1, "codes[%d] = %d", i, codes[i]);

	/* 2. WNOHANG while a child is held on a pipe */
	int pfd[2];
	if (pipe(pfd) != 0)
		die("pipe");
	pid_t held = xfork();
	if (held == 0) {
		close(pfd[1]);
		char c;
		ssize_t r;
		while ((r = read(pfd[0], &c, 1)) < 0 && errno == EINTR)
			;
		_exit(r == 0 ? 7 : 8);   /* 7: saw EOF, as expected */
	}
	close(pfd[0]);
	w = waitpid(held, &status, WNOHANG);
	printf("WNOHANG while running: %d\n", (int)w);
	CHECK(w == 0, "waitpid WNOHANG returned %d", (int)w);
	siginfo_t si;
	memset(&si, 0, sizeof si);
	int rc = waitid(P_PID, (id_t)held, &si, WEXITED | WNOHANG);
	printf("waitid WNOHANG while running: rc %d si_pid %d\n", rc, (int)si.si_pid);
	CHECK(rc == 0 && si.si_pid == 0, "waitid WNOHANG: rc %d si_pid %d", rc, (int)si.si_pid);
	close(pfd[1]);   /* release the child: it reads EOF */
	w = waitpid(held, &status, 0);
	CHECK(w == held, "waitpid(held) returned %d", (int)w);
	printf("held child: exited %d code %d\n", WIFEXITED(status), WEXITSTATUS(status));
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 7, "held child status 0x%x", status);

	/* 3. ECHILD */
	errno = 0;
	w = waitpid(-1, &status, 0);
	printf("waitpid with no children: %d %s\n", (int)w, errno == ECHILD ? "ECHILD" : strerror(errno));
	CHECK(w == -1 && errno == ECHILD, "no ECHILD");
	errno = 0;
	rc = waitid(P_ALL, 0, &si, WEXITED);
	printf("waitid with no children: %d %s\n", rc, errno == ECHILD ? "ECHILD" : strerror(errno));
	CHECK(rc == -1 && errno == ECHILD, "waitid: no ECHILD");

	/* 4. SIGKILL */
	if (pipe(pfd) != 0)
		die("pipe");
	pid_t victim = xfork();
	if (victim == 0) {
		close(pfd[1]);
		char c;
		for (;;)
			if (read(pfd[0], &c, 1) == 0)
				_exit(0);   /* only if the parent died */
	}
	close(pfd[0]);
	if (kill(victim, SIGKILL) != 0)
		die("kill");
	w = waitpid(victim, &status, 0);
	CHECK(w == victim, "waitpid(victim) returned %d", (int)w);
	printf("killed child: signaled %d termsig %d exited %d\n",
	       WIFSIGNALED(status), WIFSIGNALED(status) ? WTERMSIG(status) : 0, WIFEXITED(status));
	CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL, "victim status 0x%x", status);
	close(pfd[1]);

	/* 5. WNOWAIT leaves the zombie in place */
	pid_t z = xfork();
	if (z == 0)
		_exit(11);
	memset(&si, 0, sizeof si);
	rc = waitid(P_PID, (id_t)z, &si, WEXITED | WNOWAIT);
	CHECK(rc == 0 && si.si_pid == z && si.si_status == 11, "WNOWAIT: rc %d status %d", rc, si.si_status);
	w = waitpid(z, &status, 0);
	CHECK(w == z && WIFEXITED(status) && WEXITSTATUS(status) == 11, "after WNOWAIT: 0x%x", status);
	printf("WNOWAIT then waitpid: code %d %d\n", si.si_status, WEXITSTATUS(status));

	if (failures) {
		printf("%d failures\n", failures);
		return 1;
	}
	printf("ok\n");
	return 0;
}
