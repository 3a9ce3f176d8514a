/* sched_own: a machine's own scheduler. Sets, and reads back, what a
 * program can ask of the scheduler: SCHED_FIFO 99, nice -20, a real-time
 * I/O priority, an affinity; per-thread values; SCHED_RESET_ON_FORK and
 * inheritance across fork; a process group's nice; what an unprivileged
 * process is refused; a clone(CLONE_UNTRACED) child and a clone3 one.
 *
 *   sched_own show        all of it; natively as root, and under dsim, the
 *                         same lines
 *   sched_own hold        the same, then ~100000 getppid calls, having
 *                         printed "holding": under dsim, long enough for a
 *                         test to look at the real process from outside
 *   sched_own deadline    SCHED_DEADLINE: set, read back, fork refused
 *   sched_own gone PID    getscheduler and getpriority of PID (under dsim:
 *                         a host pid, not one of the machine's)
 *
 * Only its own threads, children and process group are ever changed (the
 * group after setsid), never anything it did not start. */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/sched.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

struct attr {
	uint32_t size, policy;
	uint64_t flags;
	int32_t nice;
	uint32_t priority;
	uint64_t runtime, deadline, period;
	uint32_t util_min, util_max;
};

#define IOPRIO(cls, level) ((cls) << 13 | (level))

static const char *err(long r) { return r < 0 ? strerrorname_np(errno) : "ok"; }

static void show_self(const char *who)
{
	struct sched_param p = { -1 };
	int pol = sched_getscheduler(0);
	sched_getparam(0, &p);
	errno = 0;
	int nice = getpriority(PRIO_PROCESS, 0);
	long io = syscall(SYS_ioprio_get, 1, 0);
	cpu_set_t set;
	CPU_ZERO(&set);
	sched_getaffinity(0, sizeof set, &set);
	printf("%s: policy %#x priority %d nice %d ioprio %ld cpu0 %d\n", who, pol, p.sched_priority, nice, io,
	       CPU_ISSET(0, &set));
}

static void show_attr(const char *what, unsigned usize)
{
	struct attr a;
	memset(&a, 0xff, sizeof a);
	long r = syscall(SYS_sched_getattr, 0, &a, usize, 0);
	printf("%s: getattr %s size %u policy %u flags %llu nice %d priority %u", what, err(r), a.size, a.policy,
	       (unsigned long long)a.flags, a.nice, a.priority);
	if (a.policy == 6)
		printf(" runtime %llu deadline %llu period %llu", (unsigned long long)a.runtime,
		       (unsigned long long)a.deadline, (unsigned long long)a.period);
	printf("\n");
}

static void errors(void)
{
	struct sched_param p = { 100 };
	printf("FIFO 100: %s\n", err(sched_setscheduler(0, SCHED_FIFO, &p)));
	p.sched_priority = 5;
	printf("OTHER 5: %s\n", err(sched_setscheduler(0, SCHED_OTHER, &p)));
	p.sched_priority = 0;
	printf("FIFO 0: %s\n", err(sched_setscheduler(0, SCHED_FIFO, &p)));
	printf("policy 4: %s\n", err(sched_setscheduler(0, 4, &p)));
	printf("policy -1: %s\n", err(syscall(SYS_sched_setscheduler, 0, -1, &p)));
	printf("pid -1: %s\n", err(syscall(SYS_sched_getscheduler, -1)));
	printf("NULL param: %s\n", err(syscall(SYS_sched_setscheduler, 0, SCHED_OTHER, NULL)));
	printf("bad param: %s\n", err(syscall(SYS_sched_setscheduler, 0, SCHED_OTHER, (void *)8)));
	printf("no such pid: %s\n", err(syscall(SYS_sched_getscheduler, 0x3fffffff)));
	printf("priority max FIFO %d min RR %d max OTHER %d max 4 %s\n", sched_get_priority_max(SCHED_FIFO),
	       sched_get_priority_min(SCHED_RR), sched_get_priority_max(SCHED_OTHER),
	       err(sched_get_priority_max(4)));
	printf("getpriority which 9: %s\n", err(syscall(SYS_getpriority, 9, 0)));
	printf("ioprio class 5: %s\n", err(syscall(SYS_ioprio_set, 1, 0, IOPRIO(5, 0))));
	printf("ioprio none 1: %s\n", err(syscall(SYS_ioprio_set, 1, 0, IOPRIO(0, 1))));
	printf("ioprio which 9: %s\n", err(syscall(SYS_ioprio_set, 9, 0, IOPRIO(2, 0))));
	struct attr a = { .size = 47 };
	long r = syscall(SYS_sched_setattr, 0, &a, 0);
	printf("setattr size 47: %s, size now %u\n", err(r), a.size);
	printf("getattr size 40: %s\n", err(syscall(SYS_sched_getattr, 0, &a, 40, 0)));
	printf("setattr flags: %s\n", err(syscall(SYS_sched_setattr, 0, &a, 1)));
	cpu_set_t none;
	CPU_ZERO(&none);
	printf("affinity none: %s\n", err(sched_setaffinity(0, sizeof none, &none)));
	printf("getaffinity 4 bytes: %s\n", err(syscall(SYS_sched_getaffinity, 0, 4, &none)));
}

static int thread_nice;
static void *thread_main(void *arg)
{
	show_self("thread");
	/* nice is per thread on Linux: only this one changes. */
	setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), 3);
	errno = 0;
	thread_nice = getpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid));
	return arg;
}

static void forked(const char *what)
{
	fflush(stdout);
	pid_t c = fork();
	if (c == 0) {
		show_self(what);
		fflush(stdout);
		_exit(0);
	}
	waitpid(c, NULL, 0);
}

/* An unprivileged process is refused what needs CAP_SYS_NICE. */
static void unprivileged(void)
{
	pid_t parent = getpid();
	fflush(stdout);
	pid_t c = fork();
	if (c == 0) {
		if (setgid(65534) || setuid(65534)) _exit(1);
		struct sched_param p = { 1 };
		printf("nobody FIFO 1: %s\n", err(sched_setscheduler(0, SCHED_FIFO, &p)));
		printf("nobody nice -1: %s\n", err(setpriority(PRIO_PROCESS, 0, -1)));
		printf("nobody nice 5: %s\n", err(setpriority(PRIO_PROCESS, 0, 5)));
		printf("nobody nice 2: %s\n", err(setpriority(PRIO_PROCESS, 0, 2)));
		printf("nobody renice root: %s\n", err(setpriority(PRIO_PROCESS, (id_t)parent, 10)));
		printf("nobody ioprio RT: %s\n", err(syscall(SYS_ioprio_set, 1, 0, IOPRIO(1, 0))));
		printf("nobody ioprio root: %s\n", err(syscall(SYS_ioprio_set, 1, parent, IOPRIO(2, 7))));
		printf("nobody ioprio idle: %s\n", err(syscall(SYS_ioprio_set, 1, 0, IOPRIO(3, 0))));
		cpu_set_t one;
		CPU_ZERO(&one);
		CPU_SET(0, &one);
		printf("nobody affinity root: %s\n", err(sched_setaffinity(parent, sizeof one, &one)));
		printf("nobody reads root: policy %d\n", sched_getscheduler(parent));
		p.sched_priority = 0;
		printf("nobody OTHER: %s\n", err(sched_setscheduler(0, SCHED_OTHER, &p)));
		printf("nobody IDLE: %s\n", err(sched_setscheduler(0, SCHED_IDLE, &p)));
		printf("nobody back to OTHER: %s\n", err(sched_setscheduler(0, SCHED_OTHER, &p)));
		fflush(stdout);
		_exit(0);
	}
	int st;
	waitpid(c, &st, 0);
	printf("nobody exited %d\n", WEXITSTATUS(st));
}

/* A process group of its own (setsid): PRIO_PGRP and IOPRIO_WHO_PGRP. */
static void group(void)
{
	fflush(stdout);
	pid_t c = fork();
	if (c == 0) {
		setsid();
		int go[2];
		if (pipe(go)) _exit(1);
		pid_t g = fork();
		if (g == 0) {
			char b;
			if (read(go[0], &b, 1) != 1) _exit(1);
			show_self("group member");
			fflush(stdout);
			_exit(0);
		}
		printf("pgrp nice 5: %s\n", err(setpriority(PRIO_PGRP, 0, 5)));
		errno = 0;
		printf("pgrp getpriority: %d\n", getpriority(PRIO_PGRP, 0));
		printf("pgrp ioprio idle: %s\n", err(syscall(SYS_ioprio_set, 2, 0, IOPRIO(3, 0))));
		printf("pgrp ioprio: %ld\n", syscall(SYS_ioprio_get, 2, 0));
		setpriority(PRIO_PROCESS, (id_t)g, 7);
		errno = 0;
		printf("pgrp getpriority after one at 7: %d\n", getpriority(PRIO_PGRP, 0));
		fflush(stdout);
		if (write(go[1], "x", 1) != 1) _exit(1);
		waitpid(g, NULL, 0);
		_exit(0);
	}
	waitpid(c, NULL, 0);
}

/* clone(CLONE_UNTRACED): a child like any other; each side still sees the
 * flags it passed (rdi is not changed by a system call). */
static void untraced_clone(void)
{
	unsigned long flags = CLONE_UNTRACED | SIGCHLD;
	long ret;
	unsigned long rdi_after;
	register long r10 __asm__("r10") = 0;
	register long r8 __asm__("r8") = 0;
	fflush(stdout);
	__asm__ volatile("syscall"
			 : "=a"(ret), "=D"(rdi_after)
			 : "0"((long)SYS_clone), "1"(flags), "S"(0L), "d"(0L), "r"(r10), "r"(r8)
			 : "rcx", "r11", "memory");
	if (ret == 0) {
		printf("untraced clone child: flags intact %d\n", rdi_after == flags);
		show_self("untraced clone child");
		fflush(stdout);
		_exit(7);
	}
	int st = 0;
	waitpid((pid_t)ret, &st, 0);
	printf("untraced clone: flags intact %d, child exit %d\n", rdi_after == flags, WEXITSTATUS(st));

	struct clone_args ca = { .flags = CLONE_UNTRACED, .exit_signal = SIGCHLD };
	fflush(stdout);
	ret = syscall(SYS_clone3, &ca, sizeof ca);
	if (ret == 0) {
		printf("untraced clone3 child: flags intact %d\n", ca.flags == CLONE_UNTRACED);
		fflush(stdout);
		_exit(8);
	}
	waitpid((pid_t)ret, &st, 0);
	printf("untraced clone3: flags intact %d, child exit %d\n", ca.flags == CLONE_UNTRACED, WEXITSTATUS(st));
}

static void show(void)
{
	show_self("start");
	errors();
	struct sched_param p = { 99 };
	printf("FIFO 99: %s\n", err(sched_setscheduler(0, SCHED_FIFO, &p)));
	printf("nice -20: %s\n", err(setpriority(PRIO_PROCESS, 0, -20)));
	printf("ioprio RT 0: %s\n", err(syscall(SYS_ioprio_set, 1, 0, IOPRIO(1, 0))));
	show_self("set");
	show_attr("set", sizeof(struct attr));
	show_attr("set", 48);
	cpu_set_t one;
	CPU_ZERO(&one);
	CPU_SET(0, &one);
	printf("affinity cpu0: %s\n", err(sched_setaffinity(0, sizeof one, &one)));
	cpu_set_t got;
	CPU_ZERO(&got);
	long n = syscall(SYS_sched_getaffinity, 0, sizeof got, &got);
	printf("getaffinity: %s, %d cpus, cpu0 %d\n", err(n), CPU_COUNT(&got), CPU_ISSET(0, &got));
	pthread_t th;
	pthread_create(&th, NULL, thread_main, NULL);
	pthread_join(th, NULL);
	errno = 0;
	printf("after thread: main nice %d, thread nice %d\n", getpriority(PRIO_PROCESS, 0), thread_nice);
	forked("child");
	p.sched_priority = 50;
	printf("FIFO|RESET_ON_FORK 50: %s\n", err(sched_setscheduler(0, SCHED_FIFO | SCHED_RESET_ON_FORK, &p)));
	show_self("reset");
	show_attr("reset", sizeof(struct attr));
	forked("reset child");
	unprivileged();
	group();
	untraced_clone();
	p.sched_priority = 0;
	printf("back to OTHER: %s\n", err(sched_setscheduler(0, SCHED_OTHER, &p)));
	show_self("end");
}

static void deadline(void)
{
	struct attr a = { .size = sizeof a, .policy = 6, .runtime = 1000000, .deadline = 10000000, .period = 10000000 };
	printf("DEADLINE 1ms/10ms: %s\n", err(syscall(SYS_sched_setattr, 0, &a, 0)));
	show_attr("deadline", sizeof a);
	fflush(stdout);
	pid_t c = fork();
	if (c == 0) _exit(0);
	printf("fork: %s\n", c < 0 ? strerrorname_np(errno) : "ok");
	if (c > 0) waitpid(c, NULL, 0);
	struct attr bad = a;
	bad.runtime = 20000000;
	printf("runtime > deadline: %s\n", err(syscall(SYS_sched_setattr, 0, &bad, 0)));
	a.flags = 1;
	printf("DEADLINE|RESET_ON_FORK: %s\n", err(syscall(SYS_sched_setattr, 0, &a, 0)));
	forked("deadline child");
	struct attr other = { .size = sizeof other, .policy = 0 };
	printf("back to OTHER: %s\n", err(syscall(SYS_sched_setattr, 0, &other, 0)));
	show_attr("end", sizeof other);
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 2 && !strcmp(argv[1], "show")) {
		show();
	} else if (argc == 2 && !strcmp(argv[1], "hold")) {
		show();
		struct sched_param p = { 99 };
		sched_setscheduler(0, SCHED_FIFO, &p);
		setpriority(PRIO_PROCESS, 0, -20);
		syscall(SYS_ioprio_set, 1, 0, IOPRIO(1, 0));
		printf("holding\n");
		for (int i = 0; i < 100000; i++) getppid();
		printf("held\n");
	} else if (argc == 2 && !strcmp(argv[1], "deadline")) {
		deadline();
	} else if (argc == 3 && !strcmp(argv[1], "gone")) {
		pid_t pid = atoi(argv[2]);
		printf("getscheduler: %s\n", err(sched_getscheduler(pid)));
		errno = 0;
		int r = getpriority(PRIO_PROCESS, (id_t)pid);
		printf("getpriority: %s\n", r == -1 && errno ? strerrorname_np(errno) : "ok");
		printf("ioprio_get: %s\n", err(syscall(SYS_ioprio_get, 1, pid)));
	} else {
		fprintf(stderr, "usage: sched_own show|hold|deadline|gone PID\n");
		return 2;
	}
	return 0;
}
