/* tcp_epoll_echo: a non-blocking epoll echo server and non-blocking clients.
 *
 *   tcp_epoll_echo server HOST PORT NCLIENTS [lt|et] [oneshot]
 *       One thread, one epoll set. Level-triggered (lt, the default: one
 *       read per event, so readiness must be reported again) or
 *       edge-triggered (et: read and accept until EAGAIN); with oneshot each
 *       connection is re-armed with EPOLL_CTL_MOD after every event. Echoes
 *       everything; when a client's EOF is read and its echo flushed, closes
 *       it. Stops reading a client whose echo backlog exceeds 256 KiB until
 *       it drains (back-pressure). Exits after NCLIENTS connections closed.
 *   tcp_epoll_echo client HOST PORT ID K
 *       Non-blocking connect (EINPROGRESS, wait for EPOLLOUT, SO_ERROR; on
 *       ECONNREFUSED retry: the server may start later), then sends K
 *       messages of 1..3000 bytes (contents fixed by ID and K) while reading
 *       the echo, checking every byte. After the last byte sent:
 *       shutdown(SHUT_WR); after the last byte echoed, the next event must
 *       be EPOLLRDHUP (the server's FIN) and the read after it EOF.
 *   tcp_epoll_echo selftest [PORT]
 *       For each of lt, et, lt oneshot, et oneshot: a server and 3 clients
 *       (K=100) on 127.0.0.1 as child processes; outputs are printed server
 *       first, then clients by id.
 *
 * Every printed line is deterministic natively. The last line is "ok" and
 * the exit status is 0 only if every check passed. */
#include "netcheck.h"
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <sys/epoll.h>

#define BACKLOG_MAX (256 * 1024)

/* --- server --------------------------------------------------------------- */

struct conn {
	int fd;
	char *out;              /* echo not yet written */
	size_t outlen, outcap;
	int eof;                /* read() returned 0 */
	uint32_t armed;         /* the event mask last given to epoll */
};

static int et_mode, oneshot_mode;

/* (Re-)register the connection with the events it needs now. In oneshot
 * mode this also re-arms it, so it is done after every event. */
static void rearm(int ep, struct conn *c)
{
	uint32_t want = 0;
	if (!c->eof && c->outlen < BACKLOG_MAX)
		want |= EPOLLIN | EPOLLRDHUP;
	if (c->outlen > 0)
		want |= EPOLLOUT;
	if (et_mode)
		want |= EPOLLET;
	if (oneshot_mode)
		want |= EPOLLONESHOT;
	if (want == c->armed && !oneshot_mode)
		return;
	struct epoll_event ev = { .events = want, .data.ptr = c };
	if (epoll_ctl(ep, EPOLL_CTL_MOD, c->fd, &ev) != 0)
		die("epoll_ctl MOD");
	c->armed = want;
}

static void flush_out(struct conn *c)
{
	size_t done = 0;
	while (done < c->outlen) {
		ssize_t w = write(c->fd, c->out + done, c->outlen - done);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && errno == EAGAIN)
			break;
		if (w < 0)
			die("server write");
		done += (size_t)w;
	}
	memmove(c->out, c->out + done, c->outlen - done);
	c->outlen -= done;
}

/* Read what the event allows: once (lt) or until EAGAIN/EOF (et). */
static size_t read_in(struct conn *c)
{
	size_t total = 0;
	while (!c->eof && c->outlen < BACKLOG_MAX) {
		if (c->outcap - c->outlen < 4096) {
			c->outcap = c->outcap ? 2 * c->outcap : 65536;
			c->out = realloc(c->out, c->outcap);
			if (!c->out)
				die("realloc");
		}
		ssize_t r = read(c->fd, c->out + c->outlen, c->outcap - c->outlen);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 && errno == EAGAIN)
			break;
		if (r < 0)
			die("server read");
		if (r == 0)
			c->eof = 1;
		c->outlen += (size_t)r;
		total += (size_t)r;
		if (!et_mode)
			break;
	}
	return total;
}

static int run_server(const char *host, int port, int nclients)
{
	int lfd = listen_on(host, port, SOCK_STREAM);
	if (fcntl(lfd, F_SETFL, O_NONBLOCK) != 0)
		die("fcntl");
	int ep = epoll_create1(EPOLL_CLOEXEC);
	if (ep < 0)
		die("epoll_create1");
	struct epoll_event lev = { .events = EPOLLIN | (et_mode ? EPOLLET : 0), .data.ptr = NULL };
	if (epoll_ctl(ep, EPOLL_CTL_ADD, lfd, &lev) != 0)
		die("epoll_ctl ADD listener");

	int accepted = 0, closed = 0;
	unsigned long long echoed = 0;
	while (closed < nclients) {
		struct epoll_event evs[16];
		int n = epoll_wait(ep, evs, 16, -1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			die("epoll_wait");
		for (int i = 0; i < n; i++) {
			struct conn *c = evs[i].data.ptr;
			if (!c) {
				/* Listener. In et mode every pending connection
				 * must be taken now: no second event would come. */
				for (;;) {
					int fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK);
					if (fd < 0 && (errno == EAGAIN || errno == EINTR))
						break;
					if (fd < 0)
						die("accept4");
					c = calloc(1, sizeof *c);
					c->fd = fd;
					struct epoll_event ev = { .events = 0, .data.ptr = c };
					if (epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev) != 0)
						die("epoll_ctl ADD");
					rearm(ep, c);
					accepted++;
					if (!et_mode)
						break;
				}
				continue;
			}
			uint32_t e = evs[i].events;
			CHECK(!(e & EPOLLERR), "EPOLLERR on a connection");
			if (e & (EPOLLIN | EPOLLRDHUP | EPOLLHUP))
				echoed += read_in(c);
			if (c->outlen > 0)
				flush_out(c);
			if (c->eof && c->outlen == 0) {
				close(c->fd);   /* also leaves the epoll set */
				free(c->out);
				free(c);
				closed++;
				continue;
			}
			rearm(ep, c);
		}
	}
	printf("server: %s%s: %d clients accepted, %llu bytes echoed, all closed after their EOF\n",
	       et_mode ? "et" : "lt", oneshot_mode ? " oneshot" : "", accepted, echoed);
	close(ep);
	close(lfd);
	return finish();
}

/* --- client --------------------------------------------------------------- */

/* The client's whole stream: K lines "c<ID>m<j>:<filler>\n", 1..3000 bytes
 * of filler each. */
static char *make_stream(int id, int k, size_t *len)
{
	size_t cap = (size_t)k * 3100 + 64, n = 0;
	char *s = malloc(cap);
	for (int j = 0; j < k; j++) {
		n += (size_t)sprintf(s + n, "c%dm%d:", id, j);
		uint32_t x = (uint32_t)(id * 1000003 + j * 7919) * 2654435761u;
		size_t fill = 1 + (x >> 8) % 3000;
		for (size_t f = 0; f < fill; f++)
			s[n++] = (char)('a' + (f + (size_t)j) % 26);
		s[n++] = '\n';
	}
	*len = n;
	return s;
}

/* Non-blocking connect; returns the connected socket, or -1 (errno set).
 * *how says how the last attempt went. */
static int connect_nb(const char *host, int port, char *how, size_t howlen)
{
	struct sockaddr_storage ss;
	socklen_t len = resolve(host, port, AF_UNSPEC, &ss);
	for (int attempt = 0; attempt < 300; attempt++) {
		if (attempt)
			sleep_ms(10);
		int fd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK, 0);
		if (fd < 0)
			die("socket");
		if (connect(fd, (struct sockaddr *)&ss, len) == 0) {
			snprintf(how, howlen, "connect returned 0 at once");
			return fd;
		}
		int e = errno;
		if (e == ECONNREFUSED) {       /* possible at once, on loopback */
			close(fd);
			continue;
		}
		if (e != EINPROGRESS) {
			close(fd);
			errno = e;
			return -1;
		}
		/* Writable means the handshake finished, either way: SO_ERROR
		 * says which. */
		struct pollfd p = { fd, POLLOUT, 0 };
		int pr = poll(&p, 1, 10000);
		if (pr <= 0) {
			close(fd);
			errno = pr == 0 ? ETIMEDOUT : errno;
			return -1;
		}
		int soerr = -1;
		socklen_t sl = sizeof soerr;
		if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &sl) != 0)
			die("SO_ERROR");
		if (soerr == 0) {
			/* Linux: the first connect() after the handshake
			 * completed returns 0; only later ones say EISCONN. */
			int again = connect(fd, (struct sockaddr *)&ss, len) == 0 ? 0 : errno;
			int third = connect(fd, (struct sockaddr *)&ss, len) == 0 ? 0 : errno;
			snprintf(how, howlen, "connect returned EINPROGRESS, then writable, SO_ERROR 0; "
				 "connect again: %s, and again: %s", errname(again), errname(third));
			return fd;
		}
		close(fd);
		if (soerr != ECONNREFUSED) {
			errno = soerr;
			return -1;
		}
	}
	errno = ECONNREFUSED;
	return -1;
}

static int run_client(const char *host, int port, int id, int k)
{
	char how[160];
	int fd = connect_nb(host, port, how, sizeof how);
	if (fd < 0) {
		printf("client %d: connect: %s\n", id, errname(errno));
		return 1;
	}
	printf("client %d: %s\n", id, how);

	size_t total;
	char *stream = make_stream(id, k, &total);
	static char buf[65536];
	int ep = epoll_create1(EPOLL_CLOEXEC);
	struct epoll_event ev = { .events = EPOLLIN | EPOLLOUT | EPOLLRDHUP, .data.fd = fd };
	if (ep < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev) != 0)
		die("epoll");
	size_t sent = 0, got = 0;
	int mismatch = 0, rdhup_then_eof = 0;
	for (;;) {
		struct epoll_event e;
		int n = epoll_wait(ep, &e, 1, 20000);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			printf("client %d: %s waiting for the server\n", id, n == 0 ? "timed out" : errname(errno));
			return 1;
		}
		if (got == total) {
			/* All echoed: nothing but the server's FIN may come. */
			CHECK(e.events & EPOLLRDHUP, "event %#x after the echo, expected EPOLLRDHUP", e.events);
			ssize_t r = read(fd, buf, sizeof buf);
			CHECK(r == 0, "read after EPOLLRDHUP returned %zd", r);
			rdhup_then_eof = (e.events & EPOLLRDHUP) && r == 0;
			break;
		}
		if ((e.events & EPOLLOUT) && sent < total) {
			ssize_t w = write(fd, stream + sent, total - sent < 65536 ? total - sent : 65536);
			if (w < 0 && errno != EAGAIN && errno != EINTR)
				die("client write");
			if (w > 0)
				sent += (size_t)w;
			if (sent == total) {
				if (shutdown(fd, SHUT_WR) != 0)
					die("shutdown");
				ev.events = EPOLLIN | EPOLLRDHUP;
				if (epoll_ctl(ep, EPOLL_CTL_MOD, fd, &ev) != 0)
					die("epoll_ctl MOD");
			}
		}
		if (e.events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR)) {
			size_t want = total - got < sizeof buf ? total - got : sizeof buf;
			ssize_t r = read(fd, buf, want);
			if (r < 0 && (errno == EAGAIN || errno == EINTR))
				continue;
			if (r < 0)
				die("client read");
			if (r == 0) {
				printf("client %d: early EOF after %zu of %zu bytes\n", id, got, total);
				return 1;
			}
			if (memcmp(buf, stream + got, (size_t)r) != 0)
				mismatch = 1;
			got += (size_t)r;
		}
	}
	CHECK(!mismatch, "echo differs from what was sent");
	printf("client %d: sent %d messages, %zu bytes; echo %s; then %s\n", id, k, total,
	       mismatch ? "DIFFERS" : "identical", rdhup_then_eof ? "EPOLLRDHUP and EOF" : "NO RDHUP/EOF");
	close(ep);
	close(fd);
	free(stream);
	return finish();
}

/* --- selftest ------------------------------------------------------------- */

static int st_port;
static int st_server(void *arg) { (void)arg; return run_server("127.0.0.1", st_port, 3); }
static int st_client(void *arg) { return run_client("127.0.0.1", st_port, (int)(intptr_t)arg, 100); }

static int run_selftest(int port)
{
	for (int v = 0; v < 4; v++) {
		et_mode = v & 1;
		oneshot_mode = v >> 1;
		st_port = port + v;
		struct child srv = spawn(st_server, NULL), cl[3];
		for (int i = 0; i < 3; i++)
			cl[i] = spawn(st_client, (void *)(intptr_t)(i + 1));
		CHECK(collect(srv) == 0, "server failed");
		for (int i = 0; i < 3; i++)
			CHECK(collect(cl[i]) == 0, "client %d failed", i + 1);
	}
	return finish();
}

int main(int argc, char **argv)
{
	require_lo_only();
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc >= 5 && argc <= 7 && strcmp(argv[1], "server") == 0) {
		for (int i = 5; i < argc; i++) {
			if (strcmp(argv[i], "et") == 0)
				et_mode = 1;
			else if (strcmp(argv[i], "oneshot") == 0)
				oneshot_mode = 1;
			else if (strcmp(argv[i], "lt") != 0)
				goto usage;
		}
		return run_server(argv[2], atoi(argv[3]), atoi(argv[4]));
	}
	if (argc == 6 && strcmp(argv[1], "client") == 0)
		return run_client(argv[2], atoi(argv[3]), atoi(argv[4]), atoi(argv[5]));
	if ((argc == 2 || argc == 3) && strcmp(argv[1], "selftest") == 0)
		return run_selftest(argc == 3 ? atoi(argv[2]) : 7200);
usage:
	fprintf(stderr, "usage: %s server HOST PORT NCLIENTS [lt|et] [oneshot] | "
		"client HOST PORT ID K | selftest [PORT]\n", argv[0]);
	return 2;
}
