/* stop_roundtrip: the cost of one bare seccomp stop round trip, the floor
 * under every system call dsim traps.
 *
 * Usage: stop_roundtrip [N]   (default 20000; N >= 2)
 *
 * Pins itself to the CPU it is running on (sched_setaffinity, as dsim pins
 * itself and its machines), then forks a child that sets
 * PR_SET_NO_NEW_PRIVS, installs a raw BPF seccomp filter (SECCOMP_RET_TRACE
 * for getppid, SECCOMP_RET_ALLOW for everything else) and calls getppid() N
 * times. The parent PTRACE_SEIZEs the child with PTRACE_O_TRACESECCOMP and
 * loops waitpid + PTRACE_CONT, doing nothing else at a stop. One round trip
 * is: the parent resumes the child, the child's getppid runs and returns,
 * the child enters the next getppid, the seccomp filter stops it, and the
 * parent's waitpid returns. It is timed with CLOCK_MONOTONIC in the parent
 * from the first stop to the last (N - 1 round trips).
 *
 * Prints "stop_roundtrip: pinned to CPU C" and then
 * "stop_roundtrip: N stops, R round trips, T ns, P ns per round trip".
 * Exit 1 on a setup failure, 2 on a usage error. */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#ifndef PTRACE_EVENT_SECCOMP
#define PTRACE_EVENT_SECCOMP 7
#endif

static long long now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void die(const char *what)
{
	fprintf(stderr, "stop_roundtrip: %s: %s\n", what, strerror(errno));
	exit(1);
}

/* The child: filter, wait for the tracer, then N getppid calls. */
static void child(int syncfd, long n)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_getppid, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRACE),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { (unsigned short)(sizeof f / sizeof f[0]), f };
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
		die("prctl(PR_SET_NO_NEW_PRIVS)");
	if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) != 0)
		die("prctl(PR_SET_SECCOMP)");
	/* Until the parent has seized us, a traced getppid would fail with
	 * ENOSYS instead of stopping: wait for its byte (read is allowed). */
	char c;
	while (read(syncfd, &c, 1) < 0 && errno == EINTR)
		;
	for (long i = 0; i < n; i++)
		syscall(SYS_getppid);
	_exit(0);
}

int main(int argc, char **argv)
{
	long n = 20000;
	if (argc > 1) {
		char *end;
		n = strtol(argv[1], &end, 10);
		if (*end || n < 2 || argc > 2) {
			fprintf(stderr, "usage: stop_roundtrip [N]   (N >= 2)\n");
			return 2;
		}
	}

	int cpu = sched_getcpu();
	if (cpu < 0)
		cpu = 0;
	cpu_set_t one;
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	if (sched_setaffinity(0, sizeof one, &one) != 0)
		die("sched_setaffinity");
	printf("stop_roundtrip: pinned to CPU %d\n", cpu);
	fflush(stdout);

	int p[2];
	if (pipe(p) != 0)
		die("pipe");
	pid_t pid = fork();   /* the child inherits the one-CPU affinity */
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		close(p[1]);
		child(p[0], n);
	}
	close(p[0]);
	if (ptrace(PTRACE_SEIZE, pid, 0, (void *)(long)(PTRACE_O_TRACESECCOMP | PTRACE_O_EXITKILL)) != 0) {
		int e = errno;
		kill(pid, SIGKILL);
		errno = e;
		die("PTRACE_SEIZE");
	}
	if (write(p[1], "x", 1) != 1)
		die("write");
	close(p[1]);

	long stops = 0;
	long long first = 0, last = 0;
	for (;;) {
		int st;
		pid_t w = waitpid(pid, &st, __WALL);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			die("waitpid");
		}
		if (WIFEXITED(st) || WIFSIGNALED(st))
			break;
		if (!WIFSTOPPED(st))
			continue;
		int sig = 0;
		if (st >> 8 == (SIGTRAP | (PTRACE_EVENT_SECCOMP << 8))) {
			long long t = now_ns();
			if (stops++ == 0)
				first = t;
			last = t;
		} else if (st >> 16 == 0) {
			sig = WSTOPSIG(st);   /* a signal-delivery stop: pass it on */
		}
		if (ptrace(PTRACE_CONT, pid, 0, (void *)(long)sig) != 0)
			die("PTRACE_CONT");
	}
	if (stops != n) {
		fprintf(stderr, "stop_roundtrip: expected %ld seccomp stops, saw %ld\n", n, stops);
		return 1;
	}
	long trips = stops - 1;
	printf("stop_roundtrip: %ld stops, %ld round trips, %lld ns, %.1f ns per round trip\n",
	       stops, trips, last - first, (double)(last - first) / (double)trips);
	return 0;
}
