/* signals: delivery, masking, queueing, interruption and restart.
 *
 * Every printed line is deterministic natively: where a race exists natively
 * (is the child already blocked in read()?), the program either waits for a
 * handshake or repeats the signal until the effect is seen, so the printed
 * result does not depend on timing. The last line is "ok" and the exit status
 * is 0 only if every check passed. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "selfcheck.h"

static void die(const char *what)
{
	printf("FATAL %s: %s\n", what, strerror(errno));
	fflush(stdout);
	exit(99);
}

static volatile sig_atomic_t usr1_count, rt_count, chld_count, usr2_count;
static volatile sig_atomic_t info_pid, info_code;
static int notify_fd = -1;   /* restart test: the handler writes here */

static void on_usr1(int sig) { (void)sig; usr1_count++; }
static void on_rt(int sig) { (void)sig; rt_count++; }
static void on_chld(int sig) { (void)sig; chld_count++; }
static void on_usr2(int sig) { (void)sig; usr2_count++; }
static void on_usr1_info(int sig, siginfo_t *si, void *uc)
{
	(void)sig; (void)uc;
	info_pid = si->si_pid;
	info_code = si->si_code;
	usr1_count++;
}
static void on_usr1_notify(int sig)
{
	(void)sig;
	int saved = errno;
	char c = 'h';
	if (write(notify_fd, &c, 1) != 1)
		_exit(98);
	errno = saved;
}

static void set_handler(int sig, void (*fn)(int), int flags)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = fn;
	sa.sa_flags = flags;
	sigemptyset(&sa.sa_mask);
	if (sigaction(sig, &sa, NULL) != 0)
		die("sigaction");
}

static pid_t xfork(void)
{
	fflush(stdout);
	pid_t p = fork();
	if (p < 0)
		die("fork");
	return p;
}

static int xwait(pid_t pid)
{
	int status;
	pid_t w;
	while ((w = waitpid(pid, &status, 0)) < 0 && errno == EINTR)
		;
	if (w != pid)
		die("waitpid");
	return status;
}

static void read_exact(int fd, void *buf, size_t n)
{
	size_t got = 0;
	while (got < n) {
		ssize_t r = read(fd, (char *)buf + got, n - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			die("read_exact");
		got += (size_t)r;
	}
}

static void write_all(int fd, const void *buf, size_t n)
{
	size_t done = 0;
	while (done < n) {
		ssize_t r = write(fd, (const char *)buf + done, n - done);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			die("write_all");
		done += (size_t)r;
	}
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

static void xpipe(int p[2])
{
	if (pipe2(p, O_CLOEXEC) != 0)
		die("pipe");
}

/* A child blocked in read() on an empty pipe is sent SIGUSR1 by its parent.
 * restart=0: the handler has no SA_RESTART, so read fails with EINTR.
 * restart=1: SA_RESTART, so read resumes and returns the data the parent
 * writes after the handler has run. Returns the child's report. */
static void blocked_read(int restart, char *report, size_t len)
{
	int ready[2], data[2], result[2], notify[2];
	xpipe(ready); xpipe(data); xpipe(result); xpipe(notify);
	pid_t child = xfork();
	if (child == 0) {
		notify_fd = notify[1];
		set_handler(SIGUSR1, restart ? on_usr1_notify : on_usr1, restart ? SA_RESTART : 0);
		char c = 'r', buf[16];
		write_all(ready[1], &c, 1);
		ssize_t r = read(data[0], buf, sizeof buf - 1);
		char out[64];
		if (r > 0) {
			buf[r] = 0;
			snprintf(out, sizeof out, "read returned %zd bytes \"%s\"", r, buf);
		} else if (r < 0 && errno == EINTR) {
			snprintf(out, sizeof out, "read failed EINTR");
		} else {
			snprintf(out, sizeof out, "read returned %zd errno %d", r, r < 0 ? errno : 0);
		}
		write_all(result[1], out, strlen(out));
		_exit(0);
	}
	close(ready[1]); close(data[0]); close(result[1]); close(notify[1]);
	char c;
	read_exact(ready[0], &c, 1);
	sleep_ms(50);   /* natively: let the child reach read() */
	if (!restart) {
		/* Signal until the child reports: a signal that lands before
		 * read() starts only runs the handler; the next one interrupts. */
		struct pollfd pfd = { .fd = result[0], .events = POLLIN };
		int tries = 0;
		do {
			if (kill(child, SIGUSR1) != 0)
				die("kill");
			if (++tries > 1000)
				die("child never reported");
		} while (poll(&pfd, 1, 100) == 0);
	} else {
		if (kill(child, SIGUSR1) != 0)
			die("kill");
		read_exact(notify[0], &c, 1);   /* the handler has run */
		sleep_ms(20);
		write_all(data[1], "data", 4);
	}
	size_t got = 0;
	ssize_t r;
	while (got < len - 1 && (r = read(result[0], report + got, len - 1 - got)) != 0) {
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			die("read result");
		got += (size_t)r;
	}
	report[got] = 0;
	int status = xwait(child);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "blocked_read child status 0x%x", status);
	close(ready[0]); close(data[1]); close(result[0]); close(notify[0]);
}

int main(void)
{
	sigset_t set, old, pending;

	/* 1. handler + kill(getpid()) and raise: delivered before they return */
	set_handler(SIGUSR1, on_usr1, 0);
	if (kill(getpid(), SIGUSR1) != 0)
		die("kill self");
	printf("after kill(getpid(), SIGUSR1): handled %d\n", (int)usr1_count);
	CHECK(usr1_count == 1, "kill self: count %d", (int)usr1_count);
	raise(SIGUSR1);
	printf("after raise(SIGUSR1): handled %d\n", (int)usr1_count);
	CHECK(usr1_count == 2, "raise: count %d", (int)usr1_count);

	/* 2. blocked: pending, coalesced, delivered once on unblock */
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	if (sigprocmask(SIG_BLOCK, &set, &old) != 0)
		die("sigprocmask");
	kill(getpid(), SIGUSR1);
	kill(getpid(), SIGUSR1);
	sigemptyset(&pending);
	sigpending(&pending);
	printf("blocked: handled %d, pending %d\n", (int)usr1_count, sigismember(&pending, SIGUSR1));
	CHECK(usr1_count == 2 && sigismember(&pending, SIGUSR1) == 1, "blocked: count %d", (int)usr1_count);
	if (sigprocmask(SIG_SETMASK, &old, NULL) != 0)
		die("sigprocmask");
	sigpending(&pending);
	printf("unblocked: handled %d, pending %d\n", (int)usr1_count, sigismember(&pending, SIGUSR1));
	CHECK(usr1_count == 3, "unblocked: count %d (standard signals do not queue)", (int)usr1_count);

	/* 3. real-time signals queue: two sent while blocked, two delivered */
	int rt = SIGRTMIN + 1;
	set_handler(rt, on_rt, 0);
	sigemptyset(&set);
	sigaddset(&set, rt);
	sigprocmask(SIG_BLOCK, &set, &old);
	union sigval sv = { .sival_int = 7 };
	if (sigqueue(getpid(), rt, sv) != 0 || sigqueue(getpid(), rt, sv) != 0)
		die("sigqueue");
	printf("rt blocked: handled %d\n", (int)rt_count);
	CHECK(rt_count == 0, "rt blocked: count %d", (int)rt_count);
	sigprocmask(SIG_SETMASK, &old, NULL);
	printf("rt unblocked: handled %d\n", (int)rt_count);
	CHECK(rt_count == 2, "rt unblocked: count %d", (int)rt_count);

	/* 4. SIGCHLD handler counts children (one at a time, so none coalesce) */
	set_handler(SIGCHLD, on_chld, SA_RESTART);
	for (int i = 0; i < 3; i++) {
		pid_t p = xfork();
		if (p == 0)
			_exit(i);
		int st = xwait(p);
		CHECK(WIFEXITED(st) && WEXITSTATUS(st) == i, "child %d status 0x%x", i, st);
	}
	printf("SIGCHLD handled %d times for 3 children\n", (int)chld_count);
	CHECK(chld_count == 3, "SIGCHLD count %d", (int)chld_count);
	set_handler(SIGCHLD, SIG_DFL, 0);

	/* 5. a child's read() interrupted: EINTR without SA_RESTART, restarted
	 * with it */
	char report[128];
	blocked_read(0, report, sizeof report);
	printf("no SA_RESTART: %s\n", report);
	CHECK(strcmp(report, "read failed EINTR") == 0, "no SA_RESTART: %s", report);
	blocked_read(1, report, sizeof report);
	printf("SA_RESTART: %s\n", report);
	CHECK(strcmp(report, "read returned 4 bytes \"data\"") == 0, "SA_RESTART: %s", report);

	/* 6. SIGPIPE ignored: EPIPE; default: the writer dies of SIGPIPE */
	int p[2];
	xpipe(p);
	close(p[0]);
	set_handler(SIGPIPE, SIG_IGN, 0);
	errno = 0;
	ssize_t w = write(p[1], "x", 1);
	printf("write to closed pipe with SIGPIPE ignored: %zd %s\n", w, errno == EPIPE ? "EPIPE" : strerror(errno));
	CHECK(w == -1 && errno == EPIPE, "expected EPIPE");
	pid_t c = xfork();
	if (c == 0) {
		signal(SIGPIPE, SIG_DFL);
		if (write(p[1], "x", 1) < 0)
			_exit(1);
		_exit(0);
	}
	int st = xwait(c);
	printf("writer with default SIGPIPE: signaled %d sig %d\n", WIFSIGNALED(st), WIFSIGNALED(st) ? WTERMSIG(st) : 0);
	CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGPIPE, "writer status 0x%x", st);
	close(p[1]);
	set_handler(SIGPIPE, SIG_DFL, 0);

	/* 7. a child killed by SIGTERM */
	xpipe(p);
	c = xfork();
	if (c == 0) {
		close(p[1]);
		char ch;
		while (read(p[0], &ch, 1) != 0)
			;
		_exit(0);   /* only if the parent died */
	}
	close(p[0]);
	kill(c, SIGTERM);
	st = xwait(c);
	printf("child sent SIGTERM: signaled %d sig %d\n", WIFSIGNALED(st), WIFSIGNALED(st) ? WTERMSIG(st) : 0);
	CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM, "SIGTERM child status 0x%x", st);
	close(p[1]);

	/* 8. nanosleep interrupted: a child signals us every 20 ms */
	set_handler(SIGUSR2, on_usr2, SA_RESTART);   /* nanosleep never restarts */
	pid_t parent = getpid();
	c = xfork();
	if (c == 0) {
		for (;;) {
			sleep_ms(20);
			if (kill(parent, SIGUSR2) != 0)
				_exit(0);
		}
	}
	struct timespec req = { 10, 0 }, rem = { 0, 0 };
	errno = 0;
	int r = nanosleep(&req, &rem);
	int e = errno;
	kill(c, SIGKILL);
	xwait(c);
	int rem_ok = rem.tv_sec > 0 && rem.tv_sec < 10;   /* 10 s minus a few ms */
	printf("nanosleep(10s) with signals: %d %s, remaining 0 < rem < 10s: %d\n",
	       r, e == EINTR ? "EINTR" : strerror(e), rem_ok);
	CHECK(r == -1 && e == EINTR && usr2_count >= 1 && rem_ok, "nanosleep: r %d rem %lld.%09ld",
	      r, (long long)rem.tv_sec, rem.tv_nsec);

	/* 9. sigsuspend + SA_SIGINFO: the sender's pid and SI_USER */
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_usr1_info;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigprocmask(SIG_BLOCK, &set, &old);
	int before = usr1_count;
	c = xfork();
	if (c == 0) {
		kill(parent, SIGUSR1);
		_exit(0);
	}
	sigset_t none;
	sigemptyset(&none);
	errno = 0;
	r = sigsuspend(&none);
	e = errno;
	sigprocmask(SIG_SETMASK, &old, NULL);
	xwait(c);
	printf("sigsuspend: %d %s, handled %d, si_pid is the child %d, si_code SI_USER %d\n",
	       r, e == EINTR ? "EINTR" : strerror(e), (int)(usr1_count - before),
	       info_pid == c, info_code == SI_USER);
	CHECK(r == -1 && e == EINTR && usr1_count - before == 1 && info_pid == c && info_code == SI_USER,
	      "sigsuspend: pid %d vs %d code %d", (int)info_pid, (int)c, (int)info_code);

	/* 10. SIGKILL of ourselves cannot be caught; checked from a child */
	c = xfork();
	if (c == 0) {
		signal(SIGTERM, SIG_IGN);
		raise(SIGTERM);          /* ignored */
		raise(SIGKILL);          /* cannot be */
		_exit(0);
	}
	st = xwait(c);
	printf("child ignoring SIGTERM then raising SIGKILL: signaled %d sig %d\n",
	       WIFSIGNALED(st), WIFSIGNALED(st) ? WTERMSIG(st) : 0);
	CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL, "status 0x%x", st);

	if (failures) {
		printf("%d failures\n", failures);
		return 1;
	}
	printf("ok\n");
	return 0;
}
