/* warm_listen: a server whose sockets exist before a warm start's point,
 * and clients that use them after it.
 *
 *   warm_listen server PORT NCLIENTS
 *       Makes a TCP listener on PORT (backlog 2), a UDP socket bound to
 *       PORT, a second TCP socket not yet used, and an epoll set watching
 *       the first two; prints "ready" (the point: warm_start = output srv
 *       ready). Then listens on PORT+1 with the second socket, watched too,
 *       and serves NCLIENTS clients on each: each line of a connection is
 *       answered with "echo LINE" until its close, a datagram with "udp
 *       MSG". Prints each line and datagram as it comes, and at the end
 *       whether each socket's inode and /proc/self/fd link are those it
 *       had before "ready".
 *   warm_listen client HOST PORT ID
 *       Sleeps 50 ms (past the server's "ready"), then over TCP to PORT
 *       sends "hello ID", prints the answer and "connected", keeps the
 *       connection idle 100 ms, sends "again ID" and prints the answer,
 *       shuts down its writing, prints "half-closed", and after 100 ms
 *       reads the server's close; then "hello ID" to PORT+1, and a datagram
 *       "ping ID" to PORT, printing the answers.
 *
 * With one client, every line is the same natively and under dsim. Exit 0,
 * or 99 on a failed call (its errno printed). Needs a network namespace of
 * its own (netcheck.h). */
#include "netcheck.h"
#include <stdint.h>
#include <sys/epoll.h>
#include <sys/stat.h>

static void say_ids(int fd, struct stat *st, char *link, size_t len)
{
	char path[64];
	snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
	ssize_t n = readlink(path, link, len - 1);
	link[n > 0 ? n : 0] = 0;
	if (fstat(fd, st) != 0)
		die("fstat");
}

static int server(int port, int nclients)
{
	int l = socket(AF_INET, SOCK_STREAM, 0), u = socket(AF_INET, SOCK_DGRAM, 0);
	int l2 = socket(AF_INET, SOCK_STREAM, 0), ep = epoll_create1(0);
	if (l < 0 || u < 0 || l2 < 0 || ep < 0)
		die("socket");
	int one = 1;
	setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	if (bind(l, (struct sockaddr *)&a, sizeof a) != 0 || listen(l, 2) != 0)
		die("tcp bind/listen");
	if (bind(u, (struct sockaddr *)&a, sizeof a) != 0)
		die("udp bind");
	struct epoll_event ev = { .events = EPOLLIN, .data.fd = l };
	if (epoll_ctl(ep, EPOLL_CTL_ADD, l, &ev) != 0)
		die("epoll_ctl");
	ev.data.fd = u;
	if (epoll_ctl(ep, EPOLL_CTL_ADD, u, &ev) != 0)
		die("epoll_ctl");
	int fds[3] = { l, u, l2 };
	struct stat before[3], after[3];
	char links[3][64], links_after[3][64];
	for (int i = 0; i < 3; i++)
		say_ids(fds[i], &before[i], links[i], sizeof links[i]);
	printf("ready\n");
	fflush(stdout);

	a.sin_port = htons((uint16_t)(port + 1));
	if (bind(l2, (struct sockaddr *)&a, sizeof a) != 0 || listen(l2, 2) != 0)
		die("second bind/listen");
	ev.data.fd = l2;
	if (epoll_ctl(ep, EPOLL_CTL_ADD, l2, &ev) != 0)
		die("epoll_ctl");
	int port_of[64];
	for (int left = 3 * nclients; left > 0;) {
		struct epoll_event got[4];
		int n = epoll_wait(ep, got, 4, -1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			die("epoll_wait");
		for (int i = 0; i < n; i++, left--) {
			char buf[128], out[160];
			int fd = got[i].data.fd;
			if (fd == u) {
				struct sockaddr_in from;
				socklen_t fl = sizeof from;
				ssize_t k = recvfrom(u, buf, sizeof buf - 1, 0, (struct sockaddr *)&from, &fl);
				if (k < 0)
					die("recvfrom");
				buf[k] = 0;
				int m = snprintf(out, sizeof out, "udp %s", buf);
				if (sendto(u, out, (size_t)m, 0, (struct sockaddr *)&from, fl) != m)
					die("sendto");
				printf("datagram: %s\n", buf);
				continue;
			}
			if (fd == l || fd == l2) {         /* a connection, watched for its lines */
				int c = accept(fd, NULL, NULL);
				if (c < 0)
					die("accept");
				ev.data.fd = c;
				ev.events = EPOLLIN;
				if (epoll_ctl(ep, EPOLL_CTL_ADD, c, &ev) != 0)
					die("epoll_ctl");
				port_of[c % 64] = fd == l ? port : port + 1;
				left++;                     /* its close counts, not its accept */
				continue;
			}
			ssize_t k = read(fd, buf, sizeof buf - 1);
			if (k < 0)
				die("read");
			if (k == 0) {
				close(fd);
				continue;
			}
			buf[k] = 0;
			buf[strcspn(buf, "\n")] = 0;
			int m = snprintf(out, sizeof out, "echo %s\n", buf);
			if (write(fd, out, (size_t)m) != m)
				die("write");
			printf("port %d: %s\n", port_of[fd % 64], buf);
			left++;                             /* a line, not a close */
		}
	}
	for (int i = 0; i < 3; i++) {
		say_ids(fds[i], &after[i], links_after[i], sizeof links_after[i]);
		printf("socket %d: inode %s, link %s\n", i, after[i].st_ino == before[i].st_ino ? "kept" : "CHANGED",
		       strcmp(links[i], links_after[i]) ? "CHANGED" : "kept");
	}
	return 0;
}

/* One line over connection s, and its answer. */
static void tcp_line(int s, const char *word, int id, int port)
{
	char buf[128];
	int m = snprintf(buf, sizeof buf, "%s %d\n", word, id);
	if (write(s, buf, (size_t)m) != m)
		die("write");
	ssize_t k = read(s, buf, sizeof buf - 1);
	if (k <= 0)
		die("read");
	buf[k] = 0;
	printf("port %d answered: %s", port, buf);
}

/* A connection to `to`: "hello ID" and its answer; with linger, "connected",
 * 100 ms idle (the point may come then: warm_start = output c2 connected),
 * "again ID", its writing shut down, "half-closed" (another point), 100 ms,
 * and the server's close read. Then its close. */
static void tcp_hello(const struct sockaddr_in *to, int id, int linger)
{
	int s = socket(AF_INET, SOCK_STREAM, 0);
	if (s < 0 || connect(s, (const struct sockaddr *)to, sizeof *to) != 0)
		die("connect");
	tcp_line(s, "hello", id, ntohs(to->sin_port));
	if (linger) {
		printf("connected\n");
		struct timespec nap = { 0, 100 * 1000 * 1000 };
		nanosleep(&nap, NULL);
		tcp_line(s, "again", id, ntohs(to->sin_port));
		if (shutdown(s, SHUT_WR) != 0)
			die("shutdown");
		printf("half-closed\n");
		nanosleep(&nap, NULL);
		ssize_t w = send(s, "x", 1, MSG_NOSIGNAL);
		printf("a send after it: %s\n", w < 0 ? errname(errno) : "sent");
		char c;
		ssize_t k = read(s, &c, 1);
		if (k < 0)
			die("read after shutdown");
		printf("then %s\n", k == 0 ? "closed by the server" : "a byte");
	}
	close(s);
}

static int client(const char *host, int port, int id)
{
	struct timespec nap = { 0, 50 * 1000 * 1000 };
	nanosleep(&nap, NULL);
	struct addrinfo hints = { .ai_family = AF_INET }, *res;
	if (getaddrinfo(host, NULL, &hints, &res) != 0)
		die("getaddrinfo");
	struct sockaddr_in to = *(struct sockaddr_in *)res->ai_addr;
	freeaddrinfo(res);
	to.sin_port = htons((uint16_t)port);
	tcp_hello(&to, id, 1);
	to.sin_port = htons((uint16_t)(port + 1));
	tcp_hello(&to, id, 0);
	to.sin_port = htons((uint16_t)port);
	int u = socket(AF_INET, SOCK_DGRAM, 0);
	char buf[128];
	int m = snprintf(buf, sizeof buf, "ping %d", id);
	if (u < 0 || sendto(u, buf, (size_t)m, 0, (struct sockaddr *)&to, sizeof to) != m)
		die("sendto");
	ssize_t k = recv(u, buf, sizeof buf - 1, 0);
	if (k < 0)
		die("recv");
	buf[k] = 0;
	printf("datagram answered: %s\n", buf);
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 4 && !strcmp(argv[1], "server")) {
		require_lo_only();
		return server(atoi(argv[2]), atoi(argv[3]));
	}
	if (argc == 5 && !strcmp(argv[1], "client")) {
		require_lo_only();
		return client(argv[2], atoi(argv[3]), atoi(argv[4]));
	}
	fprintf(stderr, "usage: warm_listen server PORT NCLIENTS | client HOST PORT ID\n");
	return 2;
}
