/* tcp_flow: TCP flow control, half-close and abortive close (RST).
 *
 *   tcp_flow server HOST PORT      (the reader)
 *   tcp_flow client HOST PORT      (the writer; retries while refused)
 *   tcp_flow selftest [PORT]       (both on 127.0.0.1, as child processes;
 *                                   server's output first, then client's)
 *
 * The client opens connections, each starting with a one-byte tag:
 *   'D' data: the client writes non-blocking while the server does not read,
 *       until write() says EAGAIN (the send buffer and the peer's window are
 *       full; how many bytes that took is not printed: it depends on buffer
 *       sizes). Then it tells the server, over
 *   'C' control, how many bytes it wrote (8 bytes, big-endian). The server
 *       starts reading; the client, now blocking, writes 1 MiB more (blocks
 *       until the server drains), then shutdown(SHUT_WR). The server reads
 *       to EOF, checks the count, and answers on the half-closed connection
 *       ("half-close ok\n") before closing it; it also sends its count back
 *       on the control connection.
 *   'L' linger: after a handshake byte, the client closes with SO_LINGER
 *       {1, 0}: a RST. The server, blocked in read(), gets ECONNRESET; then
 *       read() gives 0 and write() EPIPE.
 *   'U' unread: the server sends 100 bytes; the client waits until they
 *       arrived and closes without reading them, which also sends a RST:
 *       the server's read() gets ECONNRESET.
 *
 * Every printed line is deterministic natively. The last line is "ok" and
 * the exit status is 0 only if every check passed. */
#include "netcheck.h"
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>

#define EXTRA (1 << 20)

static void put64(unsigned char *b, uint64_t v)
{
	for (int i = 7; i >= 0; i--, v >>= 8)
		b[i] = (unsigned char)v;
}

static uint64_t get64(const unsigned char *b)
{
	uint64_t v = 0;
	for (int i = 0; i < 8; i++)
		v = v << 8 | b[i];
	return v;
}

static int accept_tagged(int lfd, char *tag)
{
	int fd;
	while ((fd = accept(lfd, NULL, NULL)) < 0)
		if (errno != EINTR)
			die("accept");
	if (read_full(fd, tag, 1) != 1)
		die("read tag");
	return fd;
}

/* read() once; returns its errno, or 0 with *n set. */
static int read_errno(int fd, ssize_t *n)
{
	char buf[256];
	ssize_t r;
	while ((r = read(fd, buf, sizeof buf)) < 0 && errno == EINTR)
		;
	*n = r;
	return r < 0 ? errno : 0;
}

static const char *read_result(int e, ssize_t n, char *buf, size_t len)
{
	if (e)
		snprintf(buf, len, "%s", errname(e));
	else
		snprintf(buf, len, "%zd", n);
	return buf;
}

static int run_server(const char *host, int port)
{
	signal(SIGPIPE, SIG_IGN);
	int lfd = listen_on(host, port, SOCK_STREAM);
	char t1, t2;
	int a = accept_tagged(lfd, &t1), b = accept_tagged(lfd, &t2);
	int dfd = t1 == 'D' ? a : b, cfd = t1 == 'D' ? b : a;
	CHECK((t1 == 'D' && t2 == 'C') || (t1 == 'C' && t2 == 'D'), "tags %c %c", t1, t2);

	unsigned char w8[8];
	CHECK(read_full(cfd, w8, 8) == 8, "control message");
	uint64_t expect = get64(w8) + EXTRA;
	printf("server: the writer says its non-blocking writes hit EAGAIN; draining\n");
	static char buf[65536];
	uint64_t got = 0;
	size_t r;
	while ((r = read_full(dfd, buf, sizeof buf)) > 0)
		got += r;
	CHECK(got == expect, "read %llu bytes, expected %llu", (unsigned long long)got,
	      (unsigned long long)expect);
	printf("server: read to EOF, byte count %s\n", got == expect ? "matches" : "DIFFERS");
	write_all(dfd, "half-close ok\n", 14);   /* our direction is still open */
	close(dfd);
	put64(w8, got);
	write_all(cfd, w8, 8);

	char tag, res[32];
	ssize_t n;
	int fd = accept_tagged(lfd, &tag);
	CHECK(tag == 'L', "tag %c", tag);
	write_all(fd, "R", 1);
	int e = read_errno(fd, &n);
	printf("server: read after the peer's SO_LINGER {1,0} close: %s\n", read_result(e, n, res, sizeof res));
	CHECK(e == ECONNRESET, "expected ECONNRESET");
	e = read_errno(fd, &n);
	printf("server: read again: %s\n", read_result(e, n, res, sizeof res));
	CHECK(e == 0 && n == 0, "expected 0 (EOF)");
	e = write(fd, "x", 1) < 0 ? errno : 0;
	printf("server: write after the reset: %s\n", errname(e));
	CHECK(e == EPIPE, "expected EPIPE");
	close(fd);

	fd = accept_tagged(lfd, &tag);
	CHECK(tag == 'U', "tag %c", tag);
	memset(buf, 'u', 100);
	write_all(fd, buf, 100);
	e = read_errno(fd, &n);
	printf("server: read after the peer closed with our data unread: %s\n", read_result(e, n, res, sizeof res));
	CHECK(e == ECONNRESET, "expected ECONNRESET");
	close(fd);
	close(cfd);
	close(lfd);
	return finish();
}

static int xconnect(const char *host, int port, char tag)
{
	int fd = connect_retry(host, port, 300);
	if (fd < 0)
		die("connect");
	write_all(fd, &tag, 1);
	return fd;
}

static int run_client(const char *host, int port)
{
	signal(SIGPIPE, SIG_IGN);
	int dfd = xconnect(host, port, 'D');
	if (fcntl(dfd, F_SETFL, O_NONBLOCK) != 0)
		die("fcntl");
	static char buf[65536];
	memset(buf, 'd', sizeof buf);
	uint64_t w = 0;
	for (;;) {
		ssize_t r = write(dfd, buf, sizeof buf);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 && errno == EAGAIN)
			break;
		if (r <= 0)
			die("write");
		w += (uint64_t)r;
	}
	struct pollfd p = { dfd, POLLOUT, 0 };
	int pr = poll(&p, 1, 0);
	printf("client: non-blocking writes to a peer that does not read: EAGAIN; poll POLLOUT: %s\n",
	       pr == 0 ? "not writable" : "WRITABLE");
	CHECK(pr == 0, "poll returned %d", pr);

	int cfd = xconnect(host, port, 'C');
	unsigned char w8[8];
	put64(w8, w);
	write_all(cfd, w8, 8);
	if (fcntl(dfd, F_SETFL, 0) != 0)
		die("fcntl");
	for (int i = 0; i < EXTRA / (int)sizeof buf; i++)
		write_all(dfd, buf, sizeof buf);    /* blocks until the server reads */
	printf("client: blocking write of %d more bytes completed\n", EXTRA);
	if (shutdown(dfd, SHUT_WR) != 0)
		die("shutdown");
	char reply[64];
	size_t n = read_full(dfd, reply, sizeof reply);
	CHECK(n == 14 && memcmp(reply, "half-close ok\n", 14) == 0, "reply after half-close: %zu bytes", n);
	printf("client: after shutdown(SHUT_WR) read \"%.*s\" then EOF\n", n ? (int)n - 1 : 0, reply);
	close(dfd);
	CHECK(read_full(cfd, w8, 8) == 8, "count from the server");
	CHECK(get64(w8) == w + EXTRA, "server read %llu, we wrote %llu", (unsigned long long)get64(w8),
	      (unsigned long long)(w + EXTRA));
	printf("client: server's byte count %s ours\n", get64(w8) == w + EXTRA ? "matches" : "DIFFERS FROM");

	int fd = xconnect(host, port, 'L');
	char c;
	CHECK(read_full(fd, &c, 1) == 1 && c == 'R', "handshake byte");
	struct linger lg = { 1, 0 };
	if (setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof lg) != 0)
		die("SO_LINGER");
	close(fd);
	printf("client: closed with SO_LINGER {1,0}\n");

	fd = xconnect(host, port, 'U');
	p.fd = fd;
	p.events = POLLIN;
	while (poll(&p, 1, -1) < 0)
		if (errno != EINTR)
			die("poll");
	close(fd);
	printf("client: closed with received data unread\n");
	close(cfd);
	return finish();
}

static int st_port;
static int st_server(void *arg) { (void)arg; return run_server("127.0.0.1", st_port); }
static int st_client(void *arg) { (void)arg; return run_client("127.0.0.1", st_port); }

int main(int argc, char **argv)
{
	require_lo_only();
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 4 && strcmp(argv[1], "server") == 0)
		return run_server(argv[2], atoi(argv[3]));
	if (argc == 4 && strcmp(argv[1], "client") == 0)
		return run_client(argv[2], atoi(argv[3]));
	if ((argc == 2 || argc == 3) && strcmp(argv[1], "selftest") == 0) {
		st_port = argc == 3 ? atoi(argv[2]) : 7300;
		struct child s = spawn(st_server, NULL), c = spawn(st_client, NULL);
		CHECK(collect(s) == 0, "server failed");
		CHECK(collect(c) == 0, "client failed");
		return finish();
	}
	fprintf(stderr, "usage: %s server HOST PORT | client HOST PORT | selftest [PORT]\n", argv[0]);
	return 2;
}
