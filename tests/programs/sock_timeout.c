/* sock_timeout selftest: SO_RCVTIMEO and SO_SNDTIMEO end blocking calls as
 * Linux ends them, on a unix socketpair and on TCP over 127.0.0.1: a read,
 * recv and accept with nothing to take fail with EAGAIN once the receive
 * timeout has passed (not before); a blocking write into a full socket
 * returns the part it moved, and the next one EAGAIN, after the send
 * timeout. A signal whose handler has SA_RESTART still ends such a read
 * with EINTR (signal(7): calls with a socket timeout are not restarted).
 * Prints one line per check, then "ok". */
#include "netcheck.h"
#include <fcntl.h>
#include <signal.h>
#include <sys/time.h>

static void on_alarm(int sig) { (void)sig; }

static long now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void set_timeout(int fd, int name, int ms)
{
	struct timeval tv = { ms / 1000, (ms % 1000) * 1000 };
	if (setsockopt(fd, SOL_SOCKET, name, &tv, sizeof tv) != 0)
		die("setsockopt");
	struct timeval back;
	socklen_t len = sizeof back;
	/* Linux keeps it in jiffies: it comes back rounded. */
	int got = getsockopt(fd, SOL_SOCKET, name, &back, &len);
	long diff = (back.tv_sec - tv.tv_sec) * 1000000L + back.tv_usec - tv.tv_usec;
	CHECK(got == 0 && diff > -20000 && diff < 20000,
	      "getsockopt gives back the timeout");
}

/* A call that must time out after ms: EAGAIN, not before ms, not much after. */
static void expect_timeout(const char *what, long r, long start, int ms)
{
	int e = errno;
	long took = now_ms() - start;
	CHECK(r == -1 && e == EAGAIN, "%s: %ld %s", what, r, errname(e));
	CHECK(took >= ms && took < ms + 1000, "%s took %ld ms, timeout %d", what, took, ms);
	printf("%s: %s after the timeout\n", what, r == -1 ? errname(e) : "no error");
}

/* Blocking writes into a socket nobody reads: each returns the part it
 * moved when the send timeout passes, until one moves nothing: EAGAIN. */
static void send_timeout(const char *what, int fd)
{
	set_timeout(fd, SO_SNDTIMEO, 150);
	static char big[4 << 20];
	ssize_t n = 0;
	int parts = 0;
	for (int i = 0; i < 50; i++) {
		long start = now_ms();
		n = write(fd, big, sizeof big);
		long took = now_ms() - start;
		CHECK(n != 0 && (n < 0 || (size_t)n < sizeof big), "%s: write %d moved %zd", what, i, n);
		CHECK(took >= 150 && took < 1150, "%s: write %d took %ld ms", what, i, took);
		if (n < 0)
			break;
		parts++;
	}
	CHECK(parts > 0, "%s: no write moved anything", what);
	CHECK(n == -1 && errno == EAGAIN, "%s: the last write: %zd %s", what, n, errname(errno));
	printf("%s: writes return the part they moved, then fail with %s\n", what, errname(errno));
}

int main(int argc, char **argv)
{
	if (argc != 2 || strcmp(argv[1], "selftest")) {
		fprintf(stderr, "usage: sock_timeout selftest\n");
		return 2;
	}
	require_lo_only();
	char c;
	int sv[2];
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0)
		die("socketpair");
	set_timeout(sv[0], SO_RCVTIMEO, 200);
	long start = now_ms();
	expect_timeout("unix read", read(sv[0], &c, 1), start, 200);
	send_timeout("unix write", sv[1]);

	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_alarm;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGALRM, &sa, NULL);
	int quiet[2];
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, quiet) != 0)
		die("socketpair");
	set_timeout(quiet[0], SO_RCVTIMEO, 3000);
	alarm(1);
	start = now_ms();
	long r = read(quiet[0], &c, 1);
	int e = errno;
	long took = now_ms() - start;
	CHECK(r == -1 && e == EINTR, "read with SA_RESTART and a timeout: %ld %s", r, errname(e));
	CHECK(took >= 900 && took < 2900, "the interrupted read took %ld ms", took);
	printf("unix read: a SA_RESTART signal ends it with %s\n", r == -1 ? errname(e) : "no error");

	int l = listen_on("127.0.0.1", 0, SOCK_STREAM);
	struct sockaddr_storage ss;
	socklen_t len = sizeof ss;
	getsockname(l, (struct sockaddr *)&ss, &len);
	set_timeout(l, SO_RCVTIMEO, 250);
	start = now_ms();
	expect_timeout("tcp accept", accept(l, NULL, NULL), start, 250);
	int cl = connect_retry("127.0.0.1", addr_port(&ss), 1);
	int sv2 = accept(l, NULL, NULL);
	CHECK(sv2 >= 0, "accept after connect: %s", errname(errno));
	set_timeout(cl, SO_RCVTIMEO, 300);
	start = now_ms();
	expect_timeout("tcp recv", recv(cl, &c, 1, 0), start, 300);
	/* Data that comes in time ends the wait at once. */
	CHECK(write(sv2, "x", 1) == 1, "server write");
	start = now_ms();
	CHECK(recv(cl, &c, 1, 0) == 1 && c == 'x', "recv of ready data");
	CHECK(now_ms() - start < 300, "recv of ready data waited");
	printf("tcp recv: data ends the wait\n");
	send_timeout("tcp write", cl);
	return finish();
}
