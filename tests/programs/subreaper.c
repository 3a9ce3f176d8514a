/* subreaper: orphans go to the nearest child subreaper among their
 * ancestors (PR_SET_CHILD_SUBREAPER), which gets SIGCHLD and waits for
 * them; a zombie is handed over dead; without a subreaper they go to init.
 * Only the subreaper prints; the others report through exit statuses and
 * pipes, so the output is the same on every run.
 *
 *   subreaper    prints what it sees; the last line is "ok" */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t sigchld;
static void on_chld(int sig) { (void)sig; sigchld++; }
static pid_t me;

static pid_t fork_or_die(void)
{
	fflush(stdout);
	pid_t p = fork();
	if (p < 0) { perror("fork"); exit(1); }
	return p;
}

/* Exit with status, plus 100 if the parent is not the subreaper. */
static void report_exit(int status) { _exit(getppid() == me ? status : 100 + status); }

static int reap(pid_t pid)
{
	int st;
	pid_t r = waitpid(pid, &st, 0);
	return r < 0 ? -errno : WIFEXITED(st) ? WEXITSTATUS(st) : 200 + WTERMSIG(st);
}

/* Every child still ours, in the order of their statuses. */
static void reap_all(const char *what)
{
	int got[16], n = 0, st;
	while (n < 16 && waitpid(-1, &st, 0) > 0) got[n++] = WEXITSTATUS(st);
	for (int i = 0; i < n; i++)
		for (int j = i + 1; j < n; j++)
			if (got[j] < got[i]) { int x = got[i]; got[i] = got[j]; got[j] = x; }
	printf("%s: %d reaped, statuses", what, n);
	for (int i = 0; i < n; i++) printf(" %d", got[i]);
	printf(" (then %s)\n", strerrorname_np(errno));
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	struct sigaction sa = { .sa_handler = on_chld, .sa_flags = SA_RESTART };
	sigaction(SIGCHLD, &sa, NULL);
	me = getpid();
	int is = -1;
	prctl(PR_GET_CHILD_SUBREAPER, &is);
	printf("subreaper at start: %d\n", is);
	printf("set subreaper: %d\n", prctl(PR_SET_CHILD_SUBREAPER, 1));
	prctl(PR_GET_CHILD_SUBREAPER, &is);
	printf("subreaper now: %d\n", is);

	/* A grandchild orphaned while it runs: adopted, then waited for. */
	int gate[2];
	if (pipe(gate)) return 1;
	pid_t c = fork_or_die();
	if (c == 0) {
		if (fork_or_die() == 0) {
			char b;
			if (read(gate[0], &b, 1) != 1) _exit(90);
			report_exit(5);
		}
		_exit(0);
	}
	printf("child: status %d\n", reap(c));
	sigchld = 0;
	if (write(gate[1], "x", 1) != 1) return 1;
	printf("adopted grandchild: status %d\n", reap(-1));
	printf("SIGCHLD for it: %d\n", sigchld > 0);

	/* Three generations down, the two between gone. */
	c = fork_or_die();
	if (c == 0) {
		if (fork_or_die() == 0) {
			if (fork_or_die() == 0) {
				char b;
				if (read(gate[0], &b, 1) != 1) _exit(90);
				report_exit(6);
			}
			_exit(3);     /* adopted as it exits, or after, dead */
		}
		_exit(0);
	}
	printf("child: status %d\n", reap(c));
	printf("adopted middle: status %d\n", reap(-1));
	if (write(gate[1], "x", 1) != 1) return 1;
	reap_all("adopted line");

	/* A zombie grandchild (dead before its parent) is handed over dead,
	 * with a SIGCHLD (its parent's exit sends one too, which Linux may
	 * merge with it). Counted from before the fork: the parent's exit
	 * may come before this process runs again (it did on a busy host). */
	sigchld = 0;
	c = fork_or_die();
	if (c == 0) {
		pid_t z = fork_or_die();
		if (z == 0) _exit(9);
		siginfo_t si;
		if (waitid(P_PID, (id_t)z, &si, WEXITED | WNOWAIT) != 0) _exit(91);
		_exit(0);
	}
	printf("zombie's parent: status %d\n", reap(c));
	printf("adopted zombie: status %d\n", reap(-1));
	printf("SIGCHLDs: %d\n", sigchld >= 1);

	/* Not a subreaper any more: an orphan goes to init. */
	printf("unset subreaper: %d\n", prctl(PR_SET_CHILD_SUBREAPER, 0));
	int told[2];
	if (pipe(told)) return 1;
	c = fork_or_die();
	if (c == 0) {
		if (fork_or_die() == 0) {
			char b;
			if (read(gate[0], &b, 1) != 1) _exit(90);
			b = getppid() == 1 ? 'i' : getppid() == me ? 's' : '?';
			if (write(told[1], &b, 1) != 1) _exit(91);
			_exit(0);
		}
		_exit(0);
	}
	printf("child: status %d\n", reap(c));
	errno = 0;
	printf("no orphan for us: %d\n", reap(-1));
	if (write(gate[1], "x", 1) != 1) return 1;
	char b = 0;
	if (read(told[0], &b, 1) != 1) return 1;
	printf("orphan's parent: %s\n", b == 'i' ? "init" : b == 's' ? "us" : "other");
	printf("ok\n");
	return 0;
}
