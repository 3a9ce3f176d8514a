/* exec_chain: a process that execve()s itself three times.
 *
 *   exec_chain              -> stage 0: opens two fds, execs "exec_chain 1 PID"
 *   exec_chain 1 PID ...    -> stage 1: execs from the main thread
 *   exec_chain 2 PID ...    -> stage 2: execs from a second thread (the kernel
 *                              makes the exec'ing thread take over the pid)
 *   exec_chain 3 PID ...    -> prints "done 3", "pid N", "same pid"
 *
 * Each stage checks that the pid is unchanged and that a plain fd survives
 * exec while an O_CLOEXEC one is closed. The output is deterministic natively
 * except the "pid N" line. Exits 0 only if every check passed. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define STAGES 3
extern char **environ;

static char self[4096];
static char *next_argv[8];
static char arg_stage[16], arg_pid[16], arg_keep[16], arg_cloexec[16];

static void do_exec(void)
{
	fflush(stdout);
	execve(self, next_argv, environ);
	printf("FAIL execve %s: %s\n", self, strerror(errno));
	fflush(stdout);
	_exit(1);
}

static void *exec_thread(void *arg)
{
	(void)arg;
	do_exec();
	return NULL;
}

int main(int argc, char **argv)
{
	int stage = 0, keep_fd, cloexec_fd;
	pid_t orig;

	if (argc == 1) {
		orig = getpid();
		keep_fd = open("/dev/null", O_RDONLY);
		cloexec_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
		if (keep_fd < 0 || cloexec_fd < 0) {
			perror("open");
			return 1;
		}
		printf("stage 0\n");
	} else if (argc == 5) {
		stage = atoi(argv[1]);
		orig = (pid_t)atoi(argv[2]);
		keep_fd = atoi(argv[3]);
		cloexec_fd = atoi(argv[4]);
		int ok = 1;
		printf("stage %d\n", stage);
		if (getpid() != orig) {
			printf("FAIL stage %d: pid changed\n", stage);
			ok = 0;
		}
		if (syscall(SYS_gettid) != getpid()) {
			printf("FAIL stage %d: tid != pid after exec\n", stage);
			ok = 0;
		}
		if (fcntl(keep_fd, F_GETFD) < 0) {
			printf("FAIL stage %d: inherited fd %d is closed\n", stage, keep_fd);
			ok = 0;
		}
		if (fcntl(cloexec_fd, F_GETFD) != -1 || errno != EBADF) {
			printf("FAIL stage %d: O_CLOEXEC fd %d survived exec\n", stage, cloexec_fd);
			ok = 0;
		}
		if (!ok)
			return 1;
		/* reopen the close-on-exec fd for the next stage: same number */
		int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
		if (fd != cloexec_fd) {
			printf("FAIL stage %d: reopened fd is %d, not %d\n", stage, fd, cloexec_fd);
			return 1;
		}
	} else {
		fprintf(stderr, "usage: exec_chain\n");
		return 2;
	}

	if (stage == STAGES) {
		printf("done %d\n", stage);
		printf("pid %d\n", (int)getpid());
		printf("%s\n", getpid() == orig ? "same pid" : "pid changed");
		return getpid() == orig ? 0 : 1;
	}

	ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
	if (n <= 0) {
		/* no /proc: fall back to argv[0] (a path, as the tests run it) */
		snprintf(self, sizeof self, "%s", argv[0]);
	} else {
		self[n] = 0;
	}
	snprintf(arg_stage, sizeof arg_stage, "%d", stage + 1);
	snprintf(arg_pid, sizeof arg_pid, "%d", (int)orig);
	snprintf(arg_keep, sizeof arg_keep, "%d", keep_fd);
	snprintf(arg_cloexec, sizeof arg_cloexec, "%d", cloexec_fd);
	next_argv[0] = argv[0];
	next_argv[1] = arg_stage;
	next_argv[2] = arg_pid;
	next_argv[3] = arg_keep;
	next_argv[4] = arg_cloexec;
	next_argv[5] = NULL;

	if (stage == 2) {
		/* exec from a non-leader thread; the main thread blocks meanwhile */
		pthread_t t;
		int rc = pthread_create(&t, NULL, exec_thread, NULL);
		if (rc != 0) {
			printf("FAIL pthread_create: %s\n", strerror(rc));
			return 1;
		}
		pthread_join(t, NULL);   /* never returns: exec kills this thread */
		printf("FAIL exec thread returned\n");
		return 1;
	}
	do_exec();
	return 1;
}
