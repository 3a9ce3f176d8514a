/* timers: timerfd, alarm() and setitimer(ITIMER_REAL).
 *
 *  1. timerfd (CLOCK_MONOTONIC), one-shot in 100 ms: a blocking read()
 *     returns 1 expiration, no sooner than 100 ms; then the fd is not
 *     readable (poll with timeout 0) and timerfd_gettime shows it disarmed.
 *  2. An unarmed TFD_NONBLOCK timerfd: read() fails with EAGAIN.
 *  3. Periodic, first expiry in 50 ms then every 50 ms: timerfd_gettime
 *     shows the 50 ms interval; poll(POLLIN) + read() until 3 expirations are
 *     counted; then, over a 100 ms nanosleep, at least 2 more accumulate and
 *     one read() returns them all. Disarmed again, gettime shows zeros.
 *  4. TFD_TIMER_ABSTIME, 50 ms ahead: read() returns 1, not before the time.
 *  5. alarm(10) returns 0; alarm(0) then returns 10 (the seconds left,
 *     rounded). alarm(1) with a SIGALRM handler (no SA_RESTART): pause()
 *     returns -1 EINTR after the handler ran once, 1 s (and less than 2 s)
 *     later.
 *  6. setitimer(ITIMER_REAL) every 50 ms: getitimer shows the interval;
 *     pause() until the handler ran 3 times (>= 150 ms); disarmed, getitimer
 *     shows zeros.
 *  7. setitimer one-shot (value 300 ms, no interval): getitimer shows the
 *     value and no interval; it fires once, then shows zeros.
 *
 * Every line is deterministic natively (about 1.6 s of sleeping); the last
 * is "ok". Exit 0 only if every check passed, 2 on a setup error. */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "selfcheck.h"

#define NS 1000000000LL
#define MS 1000000LL

static void die(const char *what)
{
	printf("FATAL %s: %s\n", what, strerror(errno));
	exit(2);
}

static int64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * NS + ts.tv_nsec;
}

static struct timespec ts_of(int64_t ns)
{
	struct timespec ts = { (time_t)(ns / NS), (long)(ns % NS) };
	return ts;
}

static int64_t ns_of(struct timespec ts)
{
	return (int64_t)ts.tv_sec * NS + ts.tv_nsec;
}

static void arm(int fd, int flags, int64_t value, int64_t interval)
{
	struct itimerspec its = { .it_interval = ts_of(interval), .it_value = ts_of(value) };
	if (timerfd_settime(fd, flags, &its, NULL) != 0)
		die("timerfd_settime");
}

/* A blocking read of the expiration count. */
static uint64_t expirations(int fd)
{
	uint64_t n = 0;
	ssize_t r;
	while ((r = read(fd, &n, sizeof n)) < 0 && errno == EINTR)
		;
	if (r != (ssize_t)sizeof n)
		die("read(timerfd)");
	return n;
}

static volatile sig_atomic_t alarms;

static void on_alarm(int sig)
{
	(void)sig;
	alarms++;
}

static void timerfd_tests(void)
{
	int fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
	if (fd < 0)
		die("timerfd_create");

	/* 1. one-shot */
	int64_t t0 = mono_ns();
	arm(fd, 0, 100 * MS, 0);
	uint64_t n = expirations(fd);
	int64_t waited = mono_ns() - t0;
	printf("timerfd one-shot: read %llu expiration%s\n", (unsigned long long)n, n == 1 ? "" : "s");
	CHECK(n == 1, "one-shot: %llu expirations", (unsigned long long)n);
	CHECK(waited >= 100 * MS, "one-shot: fired after %lld ns, before 100 ms", (long long)waited);
	printf("timerfd one-shot: fired no sooner than 100 ms\n");
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	int r = poll(&pfd, 1, 0);
	printf("timerfd one-shot: poll after the read returned %d\n", r);
	CHECK(r == 0, "one-shot: readable again (poll %d, revents %#x)", r, pfd.revents);
	struct itimerspec cur;
	if (timerfd_gettime(fd, &cur) != 0)
		die("timerfd_gettime");
	CHECK(ns_of(cur.it_value) == 0 && ns_of(cur.it_interval) == 0, "one-shot: still armed");
	printf("timerfd one-shot: disarmed after firing\n");

	/* 2. unarmed, nonblocking */
	int nb = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (nb < 0)
		die("timerfd_create(TFD_NONBLOCK)");
	uint64_t dummy;
	errno = 0;
	ssize_t rr = read(nb, &dummy, sizeof dummy);
	printf("timerfd nonblocking, unarmed: read returned %zd %s\n", rr, errno == EAGAIN ? "EAGAIN" : strerror(errno));
	CHECK(rr == -1 && errno == EAGAIN, "unarmed nonblocking read: %zd errno %d", rr, errno);
	close(nb);

	/* 3. periodic */
	arm(fd, 0, 50 * MS, 50 * MS);
	if (timerfd_gettime(fd, &cur) != 0)
		die("timerfd_gettime");
	CHECK(ns_of(cur.it_interval) == 50 * MS, "periodic: interval %lld ns", (long long)ns_of(cur.it_interval));
	CHECK(ns_of(cur.it_value) > 0 && ns_of(cur.it_value) <= 50 * MS, "periodic: value %lld ns",
	      (long long)ns_of(cur.it_value));
	printf("timerfd periodic: gettime shows the 50 ms interval\n");
	uint64_t total = 0;
	int polls_ok = 1;
	while (total < 3) {
		pfd.revents = 0;
		r = poll(&pfd, 1, -1);
		if (r != 1 || !(pfd.revents & POLLIN))
			polls_ok = 0;
		n = expirations(fd);
		if (n < 1)
			polls_ok = 0;
		total += n;
	}
	CHECK(polls_ok, "periodic: a poll did not report POLLIN, or a read returned 0");
	printf("timerfd periodic: poll and read counted at least 3 expirations\n");
	struct timespec d = ts_of(100 * MS);
	nanosleep(&d, NULL);
	n = expirations(fd);
	CHECK(n >= 2, "periodic: %llu expirations accumulated over 100 ms", (unsigned long long)n);
	printf("timerfd periodic: at least 2 expirations accumulated over a 100 ms sleep\n");
	arm(fd, 0, 0, 0);
	if (timerfd_gettime(fd, &cur) != 0)
		die("timerfd_gettime");
	CHECK(ns_of(cur.it_value) == 0 && ns_of(cur.it_interval) == 0, "periodic: not disarmed");
	printf("timerfd periodic: disarmed\n");

	/* 4. absolute */
	int64_t target = mono_ns() + 50 * MS;
	arm(fd, TFD_TIMER_ABSTIME, target, 0);
	n = expirations(fd);
	int64_t at = mono_ns();
	printf("timerfd absolute: read %llu expiration%s\n", (unsigned long long)n, n == 1 ? "" : "s");
	CHECK(n == 1, "absolute: %llu expirations", (unsigned long long)n);
	CHECK(at >= target, "absolute: fired %lld ns early", (long long)(target - at));
	printf("timerfd absolute: fired no sooner than its time\n");
	close(fd);
}

static void alarm_tests(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_alarm;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = 0;   /* no SA_RESTART */
	if (sigaction(SIGALRM, &sa, NULL) != 0)
		die("sigaction");

	/* 5. alarm */
	unsigned prev = alarm(10);
	unsigned left = alarm(0);
	printf("alarm(10) returned %u, then alarm(0) returned %u\n", prev, left);
	CHECK(prev == 0 && left == 10, "alarm: %u then %u", prev, left);

	alarms = 0;
	int64_t t0 = mono_ns();
	alarm(1);
	errno = 0;
	int r = pause();
	int e = errno;
	int64_t waited = mono_ns() - t0;
	printf("alarm(1): pause returned %d %s, handler ran %d time%s\n", r, e == EINTR ? "EINTR" : strerror(e),
	       (int)alarms, alarms == 1 ? "" : "s");
	CHECK(r == -1 && e == EINTR && alarms == 1, "alarm: pause %d errno %d alarms %d", r, e, (int)alarms);
	CHECK(waited >= 1 * NS && waited < 2 * NS, "alarm(1): pause returned after %lld ns", (long long)waited);
	printf("alarm(1): fired after at least 1 s and less than 2 s\n");

	/* 6. setitimer */
	struct itimerval itv = { .it_interval = { 0, 50000 }, .it_value = { 0, 50000 } }, got;
	alarms = 0;
	t0 = mono_ns();
	if (setitimer(ITIMER_REAL, &itv, NULL) != 0)
		die("setitimer");
	if (getitimer(ITIMER_REAL, &got) != 0)
		die("getitimer");
	CHECK(got.it_interval.tv_sec == 0 && got.it_interval.tv_usec == 50000, "getitimer interval %ld.%06ld",
	      (long)got.it_interval.tv_sec, (long)got.it_interval.tv_usec);
	CHECK(got.it_value.tv_sec == 0 && got.it_value.tv_usec > 0 && got.it_value.tv_usec <= 50000,
	      "getitimer value %ld.%06ld", (long)got.it_value.tv_sec, (long)got.it_value.tv_usec);
	printf("setitimer: getitimer shows the 50 ms interval\n");
	int eintr = 1;
	while (alarms < 3) {
		errno = 0;
		if (pause() != -1 || errno != EINTR)
			eintr = 0;
	}
	waited = mono_ns() - t0;
	struct itimerval off = { { 0, 0 }, { 0, 0 } };
	if (setitimer(ITIMER_REAL, &off, NULL) != 0)
		die("setitimer(off)");
	int count = alarms;
	printf("setitimer: handler ran at least 3 times, every pause returned EINTR\n");
	CHECK(count >= 3, "setitimer: handler ran %d times", count);
	CHECK(eintr, "setitimer: a pause() did not return -1 EINTR");
	CHECK(waited >= 150 * MS, "setitimer: 3 expirations after only %lld ns", (long long)waited);
	printf("setitimer: 3 expirations took at least 150 ms\n");
	if (getitimer(ITIMER_REAL, &got) != 0)
		die("getitimer");
	CHECK(got.it_value.tv_sec == 0 && got.it_value.tv_usec == 0 && got.it_interval.tv_sec == 0 &&
	      got.it_interval.tv_usec == 0, "setitimer: not disarmed");
	printf("setitimer: disarmed\n");

	/* 7. One-shot: it_value 300 ms, no interval (the fields are apart). */
	struct itimerval once = { .it_interval = { 0, 0 }, .it_value = { 0, 300000 } };
	alarms = 0;
	t0 = mono_ns();
	if (setitimer(ITIMER_REAL, &once, NULL) != 0)
		die("setitimer(once)");
	if (getitimer(ITIMER_REAL, &got) != 0)
		die("getitimer");
	CHECK(got.it_interval.tv_sec == 0 && got.it_interval.tv_usec == 0, "one-shot: interval %ld.%06ld",
	      (long)got.it_interval.tv_sec, (long)got.it_interval.tv_usec);
	CHECK(got.it_value.tv_sec == 0 && got.it_value.tv_usec > 200000 && got.it_value.tv_usec <= 300000,
	      "one-shot: value %ld.%06ld", (long)got.it_value.tv_sec, (long)got.it_value.tv_usec);
	while (alarms < 1)
		pause();
	waited = mono_ns() - t0;
	CHECK(waited >= 300 * MS && waited < 1000 * MS, "one-shot: fired after %lld ns", (long long)waited);
	if (getitimer(ITIMER_REAL, &got) != 0)
		die("getitimer");
	CHECK(got.it_value.tv_sec == 0 && got.it_value.tv_usec == 0, "one-shot: still armed after firing");
	printf("setitimer: a one-shot timer fires once after 300 ms, then is disarmed\n");
}

int main(void)
{
	timerfd_tests();
	alarm_tests();
	if (failures) {
		printf("%d failures\n", failures);
		return 1;
	}
	printf("ok\n");
	return 0;
}
