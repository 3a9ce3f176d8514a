/* tcp_blocking: a blocking TCP client/server pair, one behaviour per step.
 *
 *   tcp_blocking server HOST PORT NCLIENTS
 *       Listens on HOST:PORT (SO_REUSEADDR), accepts NCLIENTS clients one
 *       after another. Each sends one length-prefixed message; the server
 *       replies with it in uppercase (length-prefixed, one writev), then
 *       reads until the client's half-close (EOF), writes "bye" and closes.
 *       It prints one line per client at the end, sorted by message, so the
 *       order in which clients arrived does not show.
 *   tcp_blocking client HOST PORT ID
 *       Connects (retrying on ECONNREFUSED: the server may start later),
 *       checks socket options, sends "hello from client ID ..." with writev,
 *       reads the reply with readv (looping over short reads), shuts down
 *       its write side, peeks at the first byte of "bye" (MSG_PEEK), then
 *       reads "bye" and EOF.
 *   tcp_blocking refused HOST PORT
 *       One connect to a port nobody listens on: prints the errno.
 *   tcp_blocking selftest [PORT]
 *       On 127.0.0.1: a server and 3 clients (as child processes, outputs
 *       printed server first, then clients in id order), then: ECONNREFUSED,
 *       connect to port 0, SO_REUSEADDR (against a listener, and against a
 *       TIME_WAIT connection), and writes to a closed peer until EPIPE.
 *
 * Only IP addresses are printed, never the kernel's ephemeral ports. The last
 * line is "ok" and the exit status is 0 only if every check passed. */
#include "netcheck.h"
#include <ctype.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdint.h>

#define MAXMSG 8192

static int getopt_int(int fd, int level, int opt)
{
	int v = -1;
	socklen_t len = sizeof v;
	if (getsockopt(fd, level, opt, &v, &len) != 0)
		die("getsockopt");
	return v;
}

/* readv until every iovec is full; returns 0 on success, -1 at an early EOF. */
static int readv_full(int fd, struct iovec *iov, int n)
{
	while (n > 0) {
		ssize_t r = readv(fd, iov, n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			die("readv");
		if (r == 0)
			return -1;
		/* Skip the filled iovecs, shorten the partly filled one. */
		while (n > 0 && (size_t)r >= iov->iov_len) {
			r -= (ssize_t)iov->iov_len;
			iov++, n--;
		}
		if (n > 0) {
			iov->iov_base = (char *)iov->iov_base + r;
			iov->iov_len -= (size_t)r;
		}
	}
	return 0;
}

static void writev_full(int fd, struct iovec *iov, int n)
{
	while (n > 0) {
		ssize_t r = writev(fd, iov, n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			die("writev");
		while (n > 0 && (size_t)r >= iov->iov_len) {
			r -= (ssize_t)iov->iov_len;
			iov++, n--;
		}
		if (n > 0) {
			iov->iov_base = (char *)iov->iov_base + r;
			iov->iov_len -= (size_t)r;
		}
	}
}

/* --- server --------------------------------------------------------------- */

struct record {
	char msg[64];   /* the start of the client's message: the sort key */
	char line[256];
};

static int cmp_record(const void *a, const void *b)
{
	const char *x = ((const struct record *)a)->msg, *y = ((const struct record *)b)->msg;
	size_t lx = strlen(x), ly = strlen(y);   /* client 9 before client 10 */
	return lx != ly ? (lx < ly ? -1 : 1) : strcmp(x, y);
}

static int run_server(const char *host, int port, int nclients)
{
	int lfd = listen_on(host, port, SOCK_STREAM);
	CHECK(getopt_int(lfd, SOL_SOCKET, SO_ACCEPTCONN) == 1, "SO_ACCEPTCONN");
	CHECK(getopt_int(lfd, SOL_SOCKET, SO_REUSEADDR) == 1, "SO_REUSEADDR");
	struct record *rec = calloc((size_t)nclients, sizeof *rec);
	static char body[MAXMSG];
	for (int i = 0; i < nclients; i++) {
		struct sockaddr_storage peer, local;
		socklen_t plen = sizeof peer, llen = sizeof local;
		int fd;
		while ((fd = accept(lfd, (struct sockaddr *)&peer, &plen)) < 0)
			if (errno != EINTR)
				die("accept");
		if (getsockname(fd, (struct sockaddr *)&local, &llen) != 0)
			die("getsockname");
		CHECK(addr_port(&local) == port, "accepted socket's local port %d", addr_port(&local));

		uint32_t hdr;
		size_t len = 0;
		if (read_full(fd, &hdr, 4) == 4) {
			len = ntohl(hdr);
			if (len > MAXMSG)
				len = 0;
		}
		CHECK(len > 0 && read_full(fd, body, len) == len, "short message");
		char upper[MAXMSG];
		for (size_t k = 0; k < len; k++)
			upper[k] = (char)toupper((unsigned char)body[k]);
		struct iovec iov[2] = { { &hdr, 4 }, { upper, len } };
		writev_full(fd, iov, 2);

		/* The client half-closes: everything after the message is EOF. */
		char extra[64];
		size_t nextra = read_full(fd, extra, sizeof extra);
		CHECK(nextra == 0, "%zu bytes after the message", nextra);
		write_all(fd, "bye", 3);
		close(fd);

		char pip[INET6_ADDRSTRLEN], lip[INET6_ADDRSTRLEN];
		/* The key: "hello from client N", up to the 4th space. */
		size_t keylen = 0;
		for (int spaces = 0; keylen < len && keylen < sizeof rec[i].msg - 1; keylen++)
			if (body[keylen] == ' ' && ++spaces == 4)
				break;
		memcpy(rec[i].msg, body, keylen);
		snprintf(rec[i].line, sizeof rec[i].line,
			 "server: '%s' (%zu bytes) from %s to %s port %d: replied, got EOF, sent bye",
			 rec[i].msg, len, addr_ip(&peer, pip, sizeof pip),
			 addr_ip(&local, lip, sizeof lip), addr_port(&local));
	}
	close(lfd);
	qsort(rec, (size_t)nclients, sizeof *rec, cmp_record);
	for (int i = 0; i < nclients; i++)
		printf("%s\n", rec[i].line);
	free(rec);
	return finish();
}

/* --- client --------------------------------------------------------------- */

static int run_client(const char *host, int port, int id)
{
	int fd = connect_retry(host, port, 300);
	if (fd < 0) {
		printf("client %d: connect: %s\n", id, errname(errno));
		return 1;
	}
	int one = 1;
	if (setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one) != 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof one) != 0)
		die("setsockopt");
	CHECK(getopt_int(fd, IPPROTO_TCP, TCP_NODELAY) == 1, "TCP_NODELAY");
	CHECK(getopt_int(fd, SOL_SOCKET, SO_KEEPALIVE) == 1, "SO_KEEPALIVE");
	CHECK(getopt_int(fd, SOL_SOCKET, SO_TYPE) == SOCK_STREAM, "SO_TYPE");
	CHECK(getopt_int(fd, SOL_SOCKET, SO_PROTOCOL) == IPPROTO_TCP, "SO_PROTOCOL");
	CHECK(getopt_int(fd, SOL_SOCKET, SO_ERROR) == 0, "SO_ERROR");
	CHECK(getopt_int(fd, SOL_SOCKET, SO_ACCEPTCONN) == 0, "SO_ACCEPTCONN");
	int dom = getopt_int(fd, SOL_SOCKET, SO_DOMAIN);

	struct sockaddr_storage peer, local;
	socklen_t plen = sizeof peer, llen = sizeof local;
	if (getpeername(fd, (struct sockaddr *)&peer, &plen) != 0 ||
	    getsockname(fd, (struct sockaddr *)&local, &llen) != 0)
		die("getpeername/getsockname");
	char pip[INET6_ADDRSTRLEN], lip[INET6_ADDRSTRLEN];
	printf("client %d: connected to %s port %d from %s (%s)\n", id,
	       addr_ip(&peer, pip, sizeof pip), addr_port(&peer),
	       addr_ip(&local, lip, sizeof lip), dom == AF_INET6 ? "AF_INET6" : dom == AF_INET ? "AF_INET" : "?");

	/* A message of a few KB, so that reads may come back short. */
	static char msg[MAXMSG], reply[MAXMSG];
	size_t len = (size_t)snprintf(msg, sizeof msg, "hello from client %d ", id);
	size_t want = 1000 + (size_t)(id % 8) * 777;
	while (len < want) {
		msg[len] = (char)('a' + len % 26);
		len++;
	}
	uint32_t hdr = htonl((uint32_t)len), rhdr = 0;
	struct iovec out[2] = { { &hdr, 4 }, { msg, len } };
	writev_full(fd, out, 2);

	struct iovec in[2] = { { &rhdr, 4 }, { reply, len } };
	CHECK(readv_full(fd, in, 2) == 0, "EOF before the reply");
	int same = ntohl(rhdr) == len;
	for (size_t k = 0; same && k < len; k++)
		same = reply[k] == toupper((unsigned char)msg[k]);
	CHECK(same, "reply is not the message in uppercase");
	printf("client %d: sent %zu bytes, reply %s\n", id, len, same ? "is the message in uppercase" : "WRONG");

	if (shutdown(fd, SHUT_WR) != 0)
		die("shutdown");
	/* Peek: blocks until at least one byte of "bye" is there, consumes none. */
	char b[8];
	ssize_t r;
	while ((r = recv(fd, b, 3, MSG_PEEK)) < 0 && errno == EINTR)
		;
	CHECK(r >= 1 && b[0] == 'b', "peek returned %zd", r);
	size_t n = read_full(fd, b, sizeof b);   /* up to EOF */
	CHECK(n == 3 && memcmp(b, "bye", 3) == 0, "after half-close got %zu bytes", n);
	printf("client %d: after shutdown(SHUT_WR): peeked '%c', read \"%.*s\" then EOF\n",
	       id, r >= 1 ? b[0] : '?', (int)n, b);
	CHECK(read(fd, b, 1) == 0, "second read after EOF");
	close(fd);
	return finish();
}

/* One connect attempt; returns its errno (0 if it connected). */
static int connect_once(const char *host, int port)
{
	struct sockaddr_storage ss;
	socklen_t len = resolve(host, port, AF_UNSPEC, &ss);
	int fd = socket(ss.ss_family, SOCK_STREAM, 0);
	if (fd < 0)
		die("socket");
	int e = connect(fd, (struct sockaddr *)&ss, len) == 0 ? 0 : errno;
	close(fd);
	return e;
}

static int run_refused(const char *host, int port)
{
	int e = connect_once(host, port);
	printf("connect to %s port %d: %s\n", host, port, errname(e));
	CHECK(e == ECONNREFUSED, "expected ECONNREFUSED");
	return finish();
}

/* Bind a fresh TCP socket to 127.0.0.1:port; returns the errno (0: bound). */
static int try_bind(int port, int reuse)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0)
		die("socket");
	if (reuse && setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &reuse, sizeof reuse) != 0)
		die("SO_REUSEADDR");
	int e = bind(fd, (struct sockaddr *)&a, sizeof a) == 0 ? 0 : errno;
	close(fd);
	return e;
}

/* --- selftest ------------------------------------------------------------- */

static int st_port;
static int st_server(void *arg) { (void)arg; return run_server("127.0.0.1", st_port, 3); }
static int st_client(void *arg) { return run_client("127.0.0.1", st_port, (int)(intptr_t)arg); }

static int run_selftest(int port)
{
	st_port = port;
	struct child srv = spawn(st_server, NULL), cl[3];
	for (int i = 0; i < 3; i++)
		cl[i] = spawn(st_client, (void *)(intptr_t)(i + 1));
	CHECK(collect(srv) == 0, "server failed");
	for (int i = 0; i < 3; i++)
		CHECK(collect(cl[i]) == 0, "client %d failed", i + 1);

	int e = connect_once("127.0.0.1", port + 1);
	printf("connect to a port nobody listens on: %s\n", errname(e));
	CHECK(e == ECONNREFUSED, "expected ECONNREFUSED");
	e = connect_once("127.0.0.1", 0);
	printf("connect to port 0: %s\n", errname(e));
	CHECK(e == ECONNREFUSED, "expected ECONNREFUSED");

	/* SO_REUSEADDR. A connection whose server side closed first leaves a
	 * TIME_WAIT socket on the server's port (the connections above do not:
	 * their clients half-closed first). While it is there, binding the port
	 * needs SO_REUSEADDR; while a listener holds it, even that fails. */
	int lfd = listen_on("127.0.0.1", port + 3, SOCK_STREAM);
	int cfd = connect_retry("127.0.0.1", port + 3, 1);
	if (cfd < 0)
		die("connect");
	int afd = accept(lfd, NULL, NULL);
	if (afd < 0)
		die("accept");
	e = try_bind(port + 3, 1);
	printf("bind a listening port with SO_REUSEADDR: %s\n", errname(e));
	CHECK(e == EADDRINUSE, "expected EADDRINUSE");
	close(lfd);
	close(afd);                     /* the server's side closes first */
	char c;
	CHECK(read(cfd, &c, 1) == 0, "EOF from the server");
	close(cfd);
	e = try_bind(port + 3, 0);
	printf("bind it after the server closed first, without SO_REUSEADDR: %s\n", errname(e));
	CHECK(e == EADDRINUSE, "expected EADDRINUSE");
	e = try_bind(port + 3, 1);
	printf("bind it with SO_REUSEADDR: %s\n", errname(e));
	CHECK(e == 0, "expected success");

	/* EPIPE: the peer has closed (we read its EOF); the first write still
	 * succeeds (the data goes out; the closed peer answers with a RST),
	 * later ones fail. With SIGPIPE ignored the failure is EPIPE, not a
	 * signal. Linux records a RST that arrives in CLOSE_WAIT as EPIPE (not
	 * ECONNRESET), so natively the second write already fails with EPIPE;
	 * with network latency a few more writes may succeed first. */
	signal(SIGPIPE, SIG_IGN);
	lfd = listen_on("127.0.0.1", port + 2, SOCK_STREAM);
	cfd = connect_retry("127.0.0.1", port + 2, 1);
	if (cfd < 0)
		die("connect");
	afd = accept(lfd, NULL, NULL);
	if (afd < 0)
		die("accept");
	close(afd);
	CHECK(read(cfd, &c, 1) == 0, "EOF from the closed peer");
	int first_ok = write(cfd, "x", 1) == 1, writes = 1, reset = 0;
	for (;;) {
		writes++;
		if (write(cfd, "x", 1) == 1)
			continue;
		if (errno == ECONNRESET && !reset) {
			reset = 1;
			continue;
		}
		break;
	}
	printf("writes after the peer closed: first %s, then %s (SIGPIPE ignored)\n",
	       first_ok ? "succeeds" : "FAILS", errname(errno));
	CHECK(first_ok && errno == EPIPE && writes < 100, "expected EPIPE soon, got %s after %d writes",
	      errname(errno), writes);
	close(cfd);
	close(lfd);
	return finish();
}

int main(int argc, char **argv)
{
	require_lo_only();
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 5 && strcmp(argv[1], "server") == 0)
		return run_server(argv[2], atoi(argv[3]), atoi(argv[4]));
	if (argc == 5 && strcmp(argv[1], "client") == 0)
		return run_client(argv[2], atoi(argv[3]), atoi(argv[4]));
	if (argc == 4 && strcmp(argv[1], "refused") == 0)
		return run_refused(argv[2], atoi(argv[3]));
	if ((argc == 2 || argc == 3) && strcmp(argv[1], "selftest") == 0)
		return run_selftest(argc == 3 ? atoi(argv[2]) : 7100);
	fprintf(stderr, "usage: %s server HOST PORT NCLIENTS | client HOST PORT ID | "
		"refused HOST PORT | selftest [PORT]\n", argv[0]);
	return 2;
}
