/* tcp_writes: blocking TCP writes of every size and form arrive whole and in
 * order, and readers blocked on one socket all wake.
 *
 *   tcp_writes selftest [PORT]     (server and client on 127.0.0.1, the
 *                                   client a child process)
 *
 * The client writes, on one blocking connection: 200 one-byte round trips
 * (each byte answered); messages of 1, 100, 4096, 65536, 65537 and 300000
 * bytes by write; three pieces by writev; a sendmsg without ancillary data;
 * a send with MSG_NOSIGNAL; 10 bytes with MSG_MORE and 10 without; then 400
 * writes of 1000 bytes while the server does not read (more than dsim's
 * relay keeps in flight). The server counts and sums every byte and says so.
 * Then two client threads block reading the socket together, while the
 * third marks it close-on-exec with close_range (which closes nothing) and
 * dup2s it onto itself, and asks for two bytes: each thread gets one. Then
 * the client shuts its writing down and the server reads the end.
 *
 * Every line is deterministic natively; the last is "ok", and the exit
 * status is 0 only if every check passed. */
#include "netcheck.h"
#include <linux/close_range.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <sys/syscall.h>

#define WINDOW_WRITES 400
#define WINDOW_WRITE 1000

static const size_t sizes[] = { 1, 100, 4096, 65536, 65537, 300000 };

static unsigned char pattern(size_t i) { return (unsigned char)(i * 131 + 7); }

static void put(int fd, const void *buf, size_t n)
{
	ssize_t k = write(fd, buf, n);
	if (k != (ssize_t)n)
		die("write");           /* a blocking write moves everything */
}

static void get(int fd, void *buf, size_t n)
{
	for (size_t got = 0; got < n;) {
		ssize_t k = read(fd, (char *)buf + got, n - got);
		if (k <= 0)
			die("read");
		got += (size_t)k;
	}
}

/* Reads n bytes; their sum. */
static unsigned long sum_of(int fd, size_t n)
{
	static unsigned char buf[65536];
	unsigned long sum = 0;
	while (n > 0) {
		size_t want = n < sizeof buf ? n : sizeof buf;
		get(fd, buf, want);
		for (size_t i = 0; i < want; i++)
			sum += buf[i];
		n -= want;
	}
	return sum;
}

static unsigned long sum_pattern(size_t n)
{
	unsigned long sum = 0;
	for (size_t i = 0; i < n; i++)
		sum += pattern(i);
	return sum;
}

static void server(int l)
{
	int s = accept(l, NULL, NULL);
	if (s < 0)
		die("accept");
	for (int i = 0; i < 200; i++) {
		char c;
		get(s, &c, 1);
		put(s, &c, 1);
	}
	printf("200 round trips\n");
	for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
		unsigned long sum = sum_of(s, sizes[i]);
		printf("write %zu: %s\n", sizes[i], sum == sum_pattern(sizes[i]) ? "whole" : "WRONG");
	}
	printf("writev: %s\n", sum_of(s, 30) == sum_pattern(10) * 3 ? "whole" : "WRONG");
	printf("sendmsg: %s\n", sum_of(s, 50) == sum_pattern(50) ? "whole" : "WRONG");
	printf("MSG_NOSIGNAL: %s\n", sum_of(s, 7) == sum_pattern(7) ? "whole" : "WRONG");
	printf("MSG_MORE: %s\n", sum_of(s, 20) == sum_pattern(10) * 2 ? "whole" : "WRONG");
	char c;
	get(s, &c, 1);                  /* the client's writes past the window begin */
	struct timespec nap = { 0, 50 * 1000 * 1000 };
	nanosleep(&nap, NULL);
	unsigned long sum = sum_of(s, (size_t)WINDOW_WRITES * WINDOW_WRITE);
	printf("%d writes of %d: %s\n", WINDOW_WRITES, WINDOW_WRITE,
	       sum == sum_pattern(WINDOW_WRITE) * WINDOW_WRITES ? "whole" : "WRONG");
	get(s, &c, 1);
	put(s, "ab", 2);                /* one byte for each blocked reader */
	printf("end: %s\n", read(s, &c, 1) == 0 ? "read 0" : "WRONG");
	close(s);
}

static int conn;

static void *reader(void *arg)
{
	get(conn, arg, 1);
	return NULL;
}

static void client(int port)
{
	conn = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (conn < 0 || connect(conn, (struct sockaddr *)&a, sizeof a) != 0)
		die("connect");
	int one = 1;
	setsockopt(conn, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
	for (int i = 0; i < 200; i++) {
		char c = (char)i, back;
		put(conn, &c, 1);
		get(conn, &back, 1);
		if (back != c)
			die("round trip");
	}
	static unsigned char buf[300000];
	for (size_t i = 0; i < sizeof buf; i++)
		buf[i] = pattern(i);
	for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++)
		put(conn, buf, sizes[i]);
	struct iovec iov[3] = { { buf, 10 }, { buf, 10 }, { buf, 10 } };
	if (writev(conn, iov, 3) != 30)
		die("writev");
	struct iovec one_iov = { buf, 50 };
	struct msghdr m = { .msg_iov = &one_iov, .msg_iovlen = 1 };
	if (sendmsg(conn, &m, 0) != 50)
		die("sendmsg");
	if (send(conn, buf, 7, MSG_NOSIGNAL) != 7)
		die("send");
	if (send(conn, buf, 10, MSG_MORE) != 10 || send(conn, buf, 10, 0) != 10)
		die("send MSG_MORE");
	put(conn, "w", 1);
	for (int i = 0; i < WINDOW_WRITES; i++)
		put(conn, buf, WINDOW_WRITE);

	char got[2] = { 0, 0 };
	pthread_t th[2];
	for (int i = 0; i < 2; i++)
		if (pthread_create(&th[i], NULL, reader, &got[i]) != 0)
			die("pthread_create");
	struct timespec nap = { 0, 20 * 1000 * 1000 };
	nanosleep(&nap, NULL);          /* both readers block */
	if (syscall(SYS_close_range, conn, conn, CLOSE_RANGE_CLOEXEC) != 0 || dup2(conn, conn) != conn)
		die("close_range, dup2");
	put(conn, "r", 1);
	for (int i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	printf("blocked readers got %s\n", (got[0] == 'a' && got[1] == 'b') || (got[0] == 'b' && got[1] == 'a') ?
	       "one byte each" : "WRONG");
	shutdown(conn, SHUT_WR);
	close(conn);
}

int main(int argc, char **argv)
{
	if (argc < 2 || strcmp(argv[1], "selftest") || argc > 3) {
		fprintf(stderr, "usage: tcp_writes selftest [PORT]\n");
		return 2;
	}
	require_lo_only();
	int port = argc > 2 ? atoi(argv[2]) : 7411;
	int l = socket(AF_INET, SOCK_STREAM, 0), one = 1;
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
	if (l < 0 || bind(l, (struct sockaddr *)&a, sizeof a) || listen(l, 1))
		die("bind/listen");
	fflush(stdout);
	pid_t pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		close(l);
		client(port);
		fflush(stdout);
		_exit(0);
	}
	server(l);
	int status;
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status))
		die("client");
	fflush(stdout);
	printf("ok\n");
	return 0;
}
