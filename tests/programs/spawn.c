/* spawn: the CLONE_VFORK family of process creation.
 *
 * posix_spawn (glibc: clone(CLONE_VM|CLONE_VFORK) on a separate stack) of
 * /bin/true and of /bin/sh -c 'exit 7'; posix_spawnp with a file action
 * redirecting stdout into a pipe; vfork()+execve(); vfork()+_exit(4).
 * Prints each status; every line is deterministic natively. The last line is
 * "ok" and the exit status is 0 only if every check passed. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;
static int failures;

static void report(const char *label, int status, int want_code)
{
	if (WIFEXITED(status))
		printf("%s: exited %d\n", label, WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		printf("%s: signal %d\n", label, WTERMSIG(status));
	else
		printf("%s: status 0x%x\n", label, status);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != want_code) {
		printf("FAIL %s: want exit %d\n", label, want_code);
		failures++;
	}
}

static int wait_for(pid_t pid)
{
	int status;
	pid_t w;
	while ((w = waitpid(pid, &status, 0)) < 0 && errno == EINTR)
		;
	if (w != pid) {
		printf("FATAL waitpid(%d) returned %d: %s\n", (int)pid, (int)w, strerror(errno));
		exit(99);
	}
	return status;
}

static void spawn_and_wait(const char *label, char *const argv[], int want)
{
	pid_t pid;
	fflush(stdout);
	int rc = posix_spawn(&pid, argv[0], NULL, NULL, argv, environ);
	if (rc != 0) {
		printf("FAIL %s: posix_spawn: %s\n", label, strerror(rc));
		failures++;
		return;
	}
	report(label, wait_for(pid), want);
}

int main(void)
{
	char *true_argv[] = { "/bin/true", NULL };
	char *sh7_argv[] = { "/bin/sh", "-c", "exit 7", NULL };
	spawn_and_wait("posix_spawn /bin/true", true_argv, 0);
	spawn_and_wait("posix_spawn sh exit 7", sh7_argv, 7);

	/* posix_spawn of a missing file fails with ENOENT (glibc reports the
	 * exec error from the vfork child back to the parent). */
	{
		pid_t pid;
		char *missing[] = { "/nonexistent/program", NULL };
		int rc = posix_spawn(&pid, missing[0], NULL, NULL, missing, environ);
		printf("posix_spawn missing: %s\n", rc == ENOENT ? "ENOENT" : strerror(rc));
		if (rc != ENOENT)
			failures++;
		if (rc == 0)
			wait_for(pid);
	}

	/* posix_spawnp with a file action: the child's stdout goes into a pipe. */
	{
		int p[2];
		if (pipe2(p, O_CLOEXEC) != 0) {
			perror("pipe2");
			return 99;
		}
		posix_spawn_file_actions_t fa;
		posix_spawn_file_actions_init(&fa);
		posix_spawn_file_actions_adddup2(&fa, p[1], 1);
		char *echo_argv[] = { "echo", "spawned", "echo", NULL };
		pid_t pid;
		fflush(stdout);
		int rc = posix_spawnp(&pid, "echo", &fa, NULL, echo_argv, environ);
		posix_spawn_file_actions_destroy(&fa);
		close(p[1]);
		if (rc != 0) {
			printf("FAIL posix_spawnp: %s\n", strerror(rc));
			failures++;
		} else {
			char buf[128];
			size_t got = 0;
			ssize_t r;
			while (got < sizeof buf - 1 &&
			       ((r = read(p[0], buf + got, sizeof buf - 1 - got)) > 0 ||
				(r < 0 && errno == EINTR)))
				if (r > 0)
					got += (size_t)r;
			buf[got] = 0;
			printf("posix_spawnp echo output: %s", buf);
			if (strcmp(buf, "spawned echo\n") != 0)
				failures++;
			report("posix_spawnp echo", wait_for(pid), 0);
		}
		close(p[0]);
	}

	/* vfork + execve */
	{
		char *argv[] = { "/bin/sh", "-c", "exit 5", NULL };
		fflush(stdout);
		pid_t pid = vfork();
		if (pid == 0) {
			execve(argv[0], argv, environ);
			_exit(127);
		}
		if (pid < 0) {
			perror("vfork");
			return 99;
		}
		report("vfork+execve sh exit 5", wait_for(pid), 5);
	}

	/* vfork + execve of a missing file: the child's _exit(127) */
	{
		char *argv[] = { "/nonexistent/program", NULL };
		fflush(stdout);
		pid_t pid = vfork();
		if (pid == 0) {
			execve(argv[0], argv, environ);
			_exit(127);
		}
		if (pid < 0) {
			perror("vfork");
			return 99;
		}
		report("vfork+execve missing", wait_for(pid), 127);
	}

	/* vfork + _exit: the parent resumes only after the child is gone, and
	 * sees what the child wrote to the shared memory. */
	{
		volatile int shared = 0;
		fflush(stdout);
		pid_t pid = vfork();
		if (pid == 0) {
			shared = 42;
			_exit(4);
		}
		if (pid < 0) {
			perror("vfork");
			return 99;
		}
		printf("vfork shared memory: %d\n", shared);
		if (shared != 42)
			failures++;
		report("vfork+_exit 4", wait_for(pid), 4);
	}

	if (failures) {
		printf("%d failures\n", failures);
		return 1;
	}
	printf("ok\n");
	return 0;
}
