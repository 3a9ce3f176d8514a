/* tcp_ipv6: IPv6 sockets and their IPv4 compatibility.
 *
 *   tcp_ipv6 selftest [PORT]
 *       In one process (connect() completes against a listener's backlog,
 *       so no second process is needed):
 *       - an AF_INET6 listener on [::] with IPV6_V6ONLY=0 (dual stack)
 *         accepts an AF_INET client; it sees the peer as ::ffff:127.0.0.1,
 *         the client sees its peer as 127.0.0.1;
 *       - an AF_INET6 client to ::1 and to ::ffff:127.0.0.1 (v4-mapped);
 *       - the dual-stack listener also holds the IPv4 port: binding
 *         0.0.0.0:PORT gives EADDRINUSE;
 *       - an IPV6_V6ONLY=1 listener on [::]:PORT+1 refuses IPv4 clients
 *         (ECONNREFUSED), accepts ::1, and leaves 0.0.0.0:PORT+1 free.
 *   tcp_ipv6 server HOST PORT NCLIENTS [v6only]
 *       Listens on HOST (e.g. ::), accepts NCLIENTS, answers each "hi\n"
 *       with "ok\n", prints the peers' addresses sorted.
 *   tcp_ipv6 client HOST PORT
 *       Connects (retrying while refused), prints its peer's address and
 *       family, sends "hi\n", expects "ok\n".
 *
 * The last line is "ok" and the exit status is 0 only if every check passed. */
#include "netcheck.h"
#include <stdint.h>

static int v6_listener(int port, int v6only)
{
	int fd = socket(AF_INET6, SOCK_STREAM, 0);
	if (fd < 0)
		die("socket AF_INET6");
	int one = 1;
	/* Set explicitly: the default comes from net.ipv6.bindv6only. */
	if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) != 0 ||
	    setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &v6only, sizeof v6only) != 0)
		die("setsockopt");
	struct sockaddr_in6 a = { .sin6_family = AF_INET6, .sin6_port = htons((uint16_t)port),
				  .sin6_addr = IN6ADDR_ANY_INIT };
	if (bind(fd, (struct sockaddr *)&a, sizeof a) != 0)
		die("bind [::]");
	if (listen(fd, 16) != 0)
		die("listen");
	return fd;
}

/* One connect from a new socket; returns the socket or -1 with *err set. */
static int try_connect(const char *ip, int port, int *err)
{
	struct sockaddr_storage ss;
	socklen_t len = resolve(ip, port, AF_UNSPEC, &ss);
	int fd = socket(ss.ss_family, SOCK_STREAM, 0);
	if (fd < 0)
		die("socket");
	if (connect(fd, (struct sockaddr *)&ss, len) == 0) {
		*err = 0;
		return fd;
	}
	*err = errno;
	close(fd);
	return -1;
}

static const char *family(const struct sockaddr_storage *ss)
{
	return ss->ss_family == AF_INET6 ? "AF_INET6" : ss->ss_family == AF_INET ? "AF_INET" : "?";
}

/* Connect to ip:port, accept on lfd, exchange a byte each way, print both
 * sides' view of their peer (address only: client ports are ephemeral). */
static void conn_pair(int lfd, const char *ip, int port)
{
	int e, cfd = try_connect(ip, port, &e);
	if (cfd < 0) {
		printf("connect to %s: %s\n", ip, errname(e));
		failures++;
		return;
	}
	struct sockaddr_storage peer, cpeer;
	socklen_t plen = sizeof peer, cplen = sizeof cpeer;
	int afd = accept(lfd, (struct sockaddr *)&peer, &plen);
	if (afd < 0)
		die("accept");
	if (getpeername(cfd, (struct sockaddr *)&cpeer, &cplen) != 0)
		die("getpeername");
	char c = 0;
	write_all(cfd, "?", 1);
	CHECK(read_full(afd, &c, 1) == 1 && c == '?', "byte to the server");
	write_all(afd, "!", 1);
	CHECK(read_full(cfd, &c, 1) == 1 && c == '!', "byte to the client");
	char a[INET6_ADDRSTRLEN], b[INET6_ADDRSTRLEN];
	printf("connect to %s: server sees %s %s, client sees %s %s port %d\n", ip,
	       family(&peer), addr_ip(&peer, a, sizeof a),
	       family(&cpeer), addr_ip(&cpeer, b, sizeof b), addr_port(&cpeer));
	close(afd);
	close(cfd);
}

static int bind4_any(int port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	int e = bind(fd, (struct sockaddr *)&a, sizeof a) == 0 ? 0 : errno;
	close(fd);
	return e;
}

static int run_selftest(int port)
{
	int lfd = v6_listener(port, 0);
	printf("listener [::] port %d, IPV6_V6ONLY=0\n", port);
	conn_pair(lfd, "127.0.0.1", port);
	conn_pair(lfd, "::1", port);
	conn_pair(lfd, "::ffff:127.0.0.1", port);
	int e = bind4_any(port);
	printf("bind 0.0.0.0 port %d: %s\n", port, errname(e));
	CHECK(e == EADDRINUSE, "expected EADDRINUSE");
	close(lfd);

	lfd = v6_listener(port + 1, 1);
	printf("listener [::] port %d, IPV6_V6ONLY=1\n", port + 1);
	int cfd = try_connect("127.0.0.1", port + 1, &e);
	printf("connect to 127.0.0.1: %s\n", errname(e));
	CHECK(cfd < 0 && e == ECONNREFUSED, "expected ECONNREFUSED");
	cfd = try_connect("::ffff:127.0.0.1", port + 1, &e);
	printf("connect to ::ffff:127.0.0.1: %s\n", errname(e));
	CHECK(cfd < 0 && e == ECONNREFUSED, "expected ECONNREFUSED");
	conn_pair(lfd, "::1", port + 1);
	e = bind4_any(port + 1);
	printf("bind 0.0.0.0 port %d: %s\n", port + 1, errname(e));
	CHECK(e == 0, "expected the IPv4 port to be free");
	close(lfd);
	return finish();
}

static int cmp_str(const void *a, const void *b) { return strcmp(a, b); }

static int run_server(const char *host, int port, int n, int v6only)
{
	struct sockaddr_storage ss;
	socklen_t len = resolve(host, port, AF_UNSPEC, &ss);
	int lfd = socket(ss.ss_family, SOCK_STREAM, 0), one = 1;
	if (lfd < 0)
		die("socket");
	setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
	if (ss.ss_family == AF_INET6 && setsockopt(lfd, IPPROTO_IPV6, IPV6_V6ONLY, &v6only, sizeof v6only) != 0)
		die("IPV6_V6ONLY");
	if (bind(lfd, (struct sockaddr *)&ss, len) != 0 || listen(lfd, 16) != 0)
		die("bind/listen");
	char (*peers)[80] = calloc((size_t)n, sizeof *peers);
	for (int i = 0; i < n; i++) {
		struct sockaddr_storage peer;
		socklen_t plen = sizeof peer;
		int fd = accept(lfd, (struct sockaddr *)&peer, &plen);
		if (fd < 0)
			die("accept");
		char line[3], ip[INET6_ADDRSTRLEN];
		CHECK(read_full(fd, line, 3) == 3 && memcmp(line, "hi\n", 3) == 0, "request");
		write_all(fd, "ok\n", 3);
		close(fd);
		snprintf(peers[i], sizeof peers[i], "%s %s", family(&peer), addr_ip(&peer, ip, sizeof ip));
	}
	qsort(peers, (size_t)n, sizeof *peers, cmp_str);
	for (int i = 0; i < n; i++)
		printf("server: client from %s\n", peers[i]);
	free(peers);
	close(lfd);
	return finish();
}

static int run_client(const char *host, int port)
{
	int fd = connect_retry(host, port, 300);
	if (fd < 0) {
		printf("client: connect to %s: %s\n", host, errname(errno));
		return 1;
	}
	struct sockaddr_storage peer;
	socklen_t plen = sizeof peer;
	if (getpeername(fd, (struct sockaddr *)&peer, &plen) != 0)
		die("getpeername");
	char ip[INET6_ADDRSTRLEN], line[4];
	printf("client: connected to %s %s port %d\n", family(&peer), addr_ip(&peer, ip, sizeof ip), addr_port(&peer));
	write_all(fd, "hi\n", 3);
	CHECK(read_full(fd, line, sizeof line) == 3 && memcmp(line, "ok\n", 3) == 0, "reply");
	close(fd);
	return finish();
}

int main(int argc, char **argv)
{
	require_lo_only();
	setvbuf(stdout, NULL, _IOLBF, 0);
	if ((argc == 5 || (argc == 6 && strcmp(argv[5], "v6only") == 0)) && strcmp(argv[1], "server") == 0)
		return run_server(argv[2], atoi(argv[3]), atoi(argv[4]), argc == 6);
	if (argc == 4 && strcmp(argv[1], "client") == 0)
		return run_client(argv[2], atoi(argv[3]));
	if ((argc == 2 || argc == 3) && strcmp(argv[1], "selftest") == 0)
		return run_selftest(argc == 3 ? atoi(argv[2]) : 7500);
	fprintf(stderr, "usage: %s selftest [PORT] | server HOST PORT NCLIENTS [v6only] | client HOST PORT\n", argv[0]);
	return 2;
}
