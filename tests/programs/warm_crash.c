/* warm_crash: a server crashed after a warm start's point, while its
 * clients' connections (open at the point) wait for answers.
 *
 *   warm_crash server PORT
 *       Listens on PORT and echoes each line of every connection ("echo
 *       LINE") until the run ends. First prints "ready" and its listener's
 *       /proc/self/fd link (socket:[N]: the number the machine is told).
 *   warm_crash client HOST PORT ID ROUNDS
 *       Sleeps 50 ms, connects, sends "hello ID", prints the answer and
 *       "connected" (the point: warm_start = output c2 connected). Then
 *       ROUNDS times: 100 ms idle, "line ID K" sent and its answer read.
 *       A connection reset or closed by a crashed server is printed
 *       ("reset at K: ERRNO" or "closed at K"), the client connects again
 *       (every 100 ms until it can) and sends the line again. Prints "done".
 *
 * Without a crash every line is the same natively and under dsim. Exit 0,
 * or 99 on a failed call. Needs a network namespace of its own
 * (netcheck.h). */
#include "netcheck.h"
#include <poll.h>

static _Noreturn void server(int port)
{
	int l = listen_on("0.0.0.0", port, SOCK_STREAM);
	char path[64], link[64];
	snprintf(path, sizeof path, "/proc/self/fd/%d", l);
	ssize_t n = readlink(path, link, sizeof link - 1);
	link[n > 0 ? n : 0] = 0;
	printf("ready %s\n", link);
	struct pollfd p[16] = { { .fd = l, .events = POLLIN } };
	int np = 1;
	for (;;) {
		if (poll(p, (nfds_t)np, -1) < 0)
			die("poll");
		for (int i = np - 1; i >= 0; i--) {
			if (!p[i].revents)
				continue;
			if (i == 0) {
				int c = accept(l, NULL, NULL);
				if (c < 0)
					die("accept");
				if (np < 16)
					p[np++] = (struct pollfd){ .fd = c, .events = POLLIN };
				else
					close(c);
				continue;
			}
			char buf[128], out[160];
			ssize_t k = read(p[i].fd, buf, sizeof buf - 1);
			if (k <= 0) {           /* closed or reset: gone */
				close(p[i].fd);
				p[i] = p[--np];
				continue;
			}
			buf[k] = 0;
			buf[strcspn(buf, "\n")] = 0;
			int m = snprintf(out, sizeof out, "echo %s\n", buf);
			if (write(p[i].fd, out, (size_t)m) != m)
				die("write");
		}
	}
}

/* A connection to `to`, tried every 100 ms until one is made. */
static int connect_again(const struct sockaddr_storage *to, socklen_t len)
{
	for (int tries = 0; tries < 200; tries++) {
		int s = socket(AF_INET, SOCK_STREAM, 0);
		if (s < 0)
			die("socket");
		if (connect(s, (const struct sockaddr *)to, len) == 0)
			return s;
		close(s);
		sleep_ms(100);
	}
	die("connect");
	return -1;
}

/* Sends `line` over s and reads its answer: the answer's length, 0 if the
 * connection was closed, -1 (errno set) if it failed. */
static ssize_t ask(int s, const char *line, char *answer, size_t len)
{
	size_t m = strlen(line);
	if (send(s, line, m, MSG_NOSIGNAL) != (ssize_t)m)
		return -1;
	ssize_t k = read(s, answer, len - 1);
	if (k > 0)
		answer[k] = 0;
	return k;
}

static int client(const char *host, int port, int id, int rounds)
{
	sleep_ms(50);
	struct sockaddr_storage to;
	socklen_t len = resolve(host, port, AF_INET, &to);
	int s = connect_again(&to, len);
	char line[64], answer[160];
	snprintf(line, sizeof line, "hello %d\n", id);
	if (ask(s, line, answer, sizeof answer) <= 0)
		die("hello");
	printf("%sconnected\n", answer);
	for (int k = 1; k <= rounds; k++) {
		sleep_ms(100);
		snprintf(line, sizeof line, "line %d %d\n", id, k);
		ssize_t got;
		while ((got = ask(s, line, answer, sizeof answer)) <= 0) {
			if (got < 0)
				printf("reset at %d: %s\n", k, errname(errno));
			else
				printf("closed at %d\n", k);
			close(s);
			s = connect_again(&to, len);
		}
		printf("%s", answer);
	}
	close(s);
	printf("done\n");
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 3 && !strcmp(argv[1], "server")) {
		require_lo_only();
		server(atoi(argv[2]));
	}
	if (argc == 6 && !strcmp(argv[1], "client")) {
		require_lo_only();
		return client(argv[2], atoi(argv[3]), atoi(argv[4]), atoi(argv[5]));
	}
	fprintf(stderr, "usage: warm_crash server PORT | client HOST PORT ID ROUNDS\n");
	return 2;
}
