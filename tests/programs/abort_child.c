/* abort_child: a child process that dies by abort().
 *
 * The parent forks; the child prints "child aborting" and calls abort(),
 * which raises SIGABRT. The parent waits for it and prints
 * "child exited: WIFEXITED=E WIFSIGNALED=S WTERMSIG=N" (expected: 0 1 6),
 * then "parent done", and exits 0. The child's core dump flag is not
 * printed (it depends on the host's core settings). Exit 1 if fork or
 * waitpid fails, or if the child did not die by SIGABRT. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <sys/wait.h>
#include <unistd.h>

int main(void)
{
	printf("parent forking\n");
	fflush(stdout);
	pid_t pid = fork();
	if (pid < 0) {
		fprintf(stderr, "abort_child: fork: %s\n", strerror(errno));
		return 1;
	}
	if (pid == 0) {
		printf("child aborting\n");
		fflush(stdout);
		abort();
	}
	int st;
	pid_t w;
	while ((w = waitpid(pid, &st, 0)) < 0 && errno == EINTR)
		;
	if (w != pid) {
		fprintf(stderr, "abort_child: waitpid: %s\n", strerror(errno));
		return 1;
	}
	int sig = WIFSIGNALED(st) ? WTERMSIG(st) : 0;
	printf("child exited: WIFEXITED=%d WIFSIGNALED=%d WTERMSIG=%d\n",
	       WIFEXITED(st) ? 1 : 0, WIFSIGNALED(st) ? 1 : 0, sig);
	printf("parent done\n");
	return sig == SIGABRT ? 0 : 1;
}
