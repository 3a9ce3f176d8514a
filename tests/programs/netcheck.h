/* netcheck.h: shared helpers for the network test programs (tcp_*.c,
 * udp_*.c, net_outside.c). Header-only: each program is one .c file that
 * includes this one, so `cc prog.c` still builds it.
 *
 * SAFETY: these programs must never produce real network traffic. Natively
 * they run only inside `unshare --net` (a network namespace that has nothing
 * but `lo`); under dsim every machine has such a namespace too. Every program
 * calls require_lo_only() before it opens an AF_INET/AF_INET6 socket or
 * resolves a name (a name missing from /etc/hosts would otherwise go to DNS):
 * if any interface other than `lo` exists, it refuses to run (exit 3). */
#ifndef NETCHECK_H
#define NETCHECK_H
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "selfcheck.h"

/* Exit 3 unless /proc/self/net/dev lists `lo` and nothing else. Fails
 * closed: an unreadable or malformed file also means exit 3. */
static __attribute__((unused)) void require_lo_only(void)
{
	FILE *f = fopen("/proc/self/net/dev", "r");
	if (!f) {
		fprintf(stderr, "netcheck: cannot read /proc/self/net/dev: %s; refusing to run\n",
			strerror(errno));
		exit(3);
	}
	char line[512];
	int lineno = 0, bad = 0;
	while (fgets(line, sizeof line, f)) {
		if (++lineno <= 2)
			continue;               /* the two header lines */
		char *colon = strchr(line, ':');
		if (!colon) {
			bad = 1;
			break;
		}
		*colon = '\0';
		char *name = line;
		while (*name == ' ' || *name == '\t')
			name++;
		if (strcmp(name, "lo") != 0) {
			fprintf(stderr, "netcheck: network interface '%s' present: refusing to run "
				"(run me inside `unshare --net` or under dsim)\n", name);
			exit(3);
		}
	}
	fclose(f);
	if (bad || lineno < 2) {
		fprintf(stderr, "netcheck: cannot parse /proc/self/net/dev; refusing to run\n");
		exit(3);
	}
}

/* The symbolic name of the errnos these programs can meet. */
static __attribute__((unused)) const char *errname(int e)
{
	switch (e) {
#define E(x) case x: return #x;
	E(EAGAIN) E(EINPROGRESS) E(EALREADY) E(EISCONN) E(ENOTCONN)
	E(ECONNREFUSED) E(ECONNRESET) E(ECONNABORTED) E(EPIPE) E(ETIMEDOUT)
	E(ENETUNREACH) E(EHOSTUNREACH) E(ENETDOWN) E(EADDRINUSE)
	E(EADDRNOTAVAIL) E(EAFNOSUPPORT) E(EINVAL) E(EACCES) E(EPERM)
	E(EINTR) E(EBADF) E(EMSGSIZE) E(EDESTADDRREQ) E(ENOTSOCK) E(ENOPROTOOPT)
#undef E
	case 0: return "0";
	default: return strerror(e);
	}
}

static __attribute__((unused)) void die(const char *what)
{
	printf("FATAL %s: %s\n", what, errname(errno));
	fflush(stdout);
	exit(99);
}

static __attribute__((unused)) void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

/* Resolve HOST (a name from /etc/hosts or a numeric address) and PORT into
 * *ss for the given family (AF_INET, AF_INET6 or AF_UNSPEC: the first
 * answer). Exits with a message if it cannot. */
static __attribute__((unused)) socklen_t resolve(const char *host, int port, int family, struct sockaddr_storage *ss)
{
	struct addrinfo hints, *res;
	memset(&hints, 0, sizeof hints);
	hints.ai_family = family;
	hints.ai_socktype = SOCK_STREAM;
	char portstr[16];
	snprintf(portstr, sizeof portstr, "%d", port);
	int rc = getaddrinfo(host, portstr, &hints, &res);
	if (rc != 0) {
		printf("FATAL resolve %s: %s\n", host, gai_strerror(rc));
		fflush(stdout);
		exit(99);
	}
	socklen_t len = res->ai_addrlen;
	memcpy(ss, res->ai_addr, len);
	freeaddrinfo(res);
	return len;
}

/* The IP address (never the port) of a socket address, as text. */
static __attribute__((unused)) const char *addr_ip(const struct sockaddr_storage *ss, char *buf, size_t n)
{
	const void *a = ss->ss_family == AF_INET6
		? (const void *)&((const struct sockaddr_in6 *)ss)->sin6_addr
		: (const void *)&((const struct sockaddr_in *)ss)->sin_addr;
	if (!inet_ntop(ss->ss_family, a, buf, (socklen_t)n))
		snprintf(buf, n, "?family%d", ss->ss_family);
	return buf;
}

static __attribute__((unused)) int addr_port(const struct sockaddr_storage *ss)
{
	return ss->ss_family == AF_INET6
		? ntohs(((const struct sockaddr_in6 *)ss)->sin6_port)
		: ntohs(((const struct sockaddr_in *)ss)->sin_port);
}

/* A socket bound to HOST:PORT with SO_REUSEADDR, listening. */
static __attribute__((unused)) int listen_on(const char *host, int port, int type)
{
	struct sockaddr_storage ss;
	socklen_t len = resolve(host, port, AF_UNSPEC, &ss);
	int fd = socket(ss.ss_family, type, 0);
	if (fd < 0)
		die("socket");
	int one = 1;
	if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) != 0)
		die("SO_REUSEADDR");
	if (bind(fd, (struct sockaddr *)&ss, len) != 0)
		die("bind");
	if (type == SOCK_STREAM && listen(fd, 64) != 0)
		die("listen");
	return fd;
}

/* Blocking TCP connect to HOST:PORT, retrying on ECONNREFUSED (the server
 * may start later) up to `tries` times, 10ms apart. Returns the socket, or
 * -1 with errno set. */
static __attribute__((unused)) int connect_retry(const char *host, int port, int tries)
{
	struct sockaddr_storage ss;
	socklen_t len = resolve(host, port, AF_UNSPEC, &ss);
	for (int i = 0;; i++) {
		int fd = socket(ss.ss_family, SOCK_STREAM, 0);
		if (fd < 0)
			die("socket");
		if (connect(fd, (struct sockaddr *)&ss, len) == 0)
			return fd;
		int e = errno;
		close(fd);
		if (e != ECONNREFUSED || i + 1 >= tries) {
			errno = e;
			return -1;
		}
		sleep_ms(10);
	}
}

static __attribute__((unused)) void write_all(int fd, const void *buf, size_t n)
{
	size_t done = 0;
	while (done < n) {
		ssize_t r = write(fd, (const char *)buf + done, n - done);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			die("write");
		done += (size_t)r;
	}
}

/* Read exactly n bytes (looping over short reads). Returns n, or the number
 * of bytes read before EOF. Dies on an error. */
static __attribute__((unused)) size_t read_full(int fd, void *buf, size_t n)
{
	size_t got = 0;
	while (got < n) {
		ssize_t r = read(fd, (char *)buf + got, n - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			die("read");
		if (r == 0)
			break;
		got += (size_t)r;
	}
	return got;
}

/* --- selftest plumbing: run roles as child processes whose stdout is
 * captured, then print each child's output whole, in a fixed order, so the
 * interleaving of the children never shows. */
struct child {
	pid_t pid;
	int out;        /* read end of the child's stdout pipe */
};

/* Fork; the child runs fn(arg) with stdout on a pipe and exits with its
 * return value. */
static __attribute__((unused)) struct child spawn(int (*fn)(void *), void *arg)
{
	int p[2];
	if (pipe(p) != 0)
		die("pipe");
	fflush(stdout);
	pid_t pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		close(p[0]);
		if (dup2(p[1], 1) < 0)
			_exit(98);
		close(p[1]);
		int rc = fn(arg);
		fflush(stdout);
		_exit(rc);
	}
	close(p[1]);
	struct child c = { pid, p[0] };
	return c;
}

/* Copy the child's whole output to our stdout, reap it, and return its exit
 * status (128+signal if killed). Outputs are small, so reading them one
 * child after another cannot deadlock on a full pipe in practice; the read
 * comes first so that even a large output drains. */
static __attribute__((unused)) int collect(struct child c)
{
	char buf[4096];
	ssize_t r;
	while ((r = read(c.out, buf, sizeof buf)) != 0) {
		if (r < 0) {
			if (errno == EINTR)
				continue;
			die("read child output");
		}
		fwrite(buf, 1, (size_t)r, stdout);
	}
	close(c.out);
	int st;
	while (waitpid(c.pid, &st, 0) < 0)
		if (errno != EINTR)
			die("waitpid");
	fflush(stdout);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* The last line of a checking program. */
static __attribute__((unused)) int finish(void)
{
	if (failures == 0)
		printf("ok\n");
	fflush(stdout);
	return failures ? 1 : 0;
}
#endif
