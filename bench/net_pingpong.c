/* net_pingpong: N round trips of one byte over a TCP connection on
 * 127.0.0.1, between a parent (the server) and its forked child (the
 * client), with blocking read and write. Each round trip is four calls
 * (write, read on each side), each of which dsim handles as a network step.
 *
 * Usage: net_pingpong [N] [PORT]   (default 2000 round trips, port 7311)
 *
 * Prints "net_pingpong: N round trips". Run it only in a network namespace
 * of its own (unshare --net): it refuses to run when lo is not the only
 * interface. Exit 1 on a failure, 2 on a usage error. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

static void die(const char *what)
{
	fprintf(stderr, "net_pingpong: %s: %s\n", what, strerror(errno));
	exit(1);
}

/* Only lo: no address this program uses can reach a real network. */
static void only_lo(void)
{
	struct if_nameindex *ifs = if_nameindex();
	if (!ifs)
		die("if_nameindex");
	for (struct if_nameindex *i = ifs; i->if_index; i++)
		if (strcmp(i->if_name, "lo")) {
			fprintf(stderr, "net_pingpong: interface %s: run me in an empty network namespace (unshare --net)\n",
			        i->if_name);
			exit(1);
		}
	if_freenameindex(ifs);
}

static void xfer(int fd, char *c, int out)
{
	ssize_t n = out ? write(fd, c, 1) : read(fd, c, 1);
	if (n != 1)
		die(out ? "write" : "read");
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? strtol(argv[1], NULL, 10) : 2000;
	int port = argc > 2 ? atoi(argv[2]) : 7311;
	if (n < 1 || port <= 0 || port > 65535 || argc > 3) {
		fprintf(stderr, "usage: net_pingpong [N] [PORT]\n");
		return 2;
	}
	only_lo();
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	int l = socket(AF_INET, SOCK_STREAM, 0), one = 1;
	if (l < 0)
		die("socket");
	setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
	if (bind(l, (struct sockaddr *)&a, sizeof a) || listen(l, 1))
		die("bind/listen");
	pid_t pid = fork();
	if (pid < 0)
		die("fork");
	char c = 'x';
	if (pid == 0) {
		close(l);
		int s = socket(AF_INET, SOCK_STREAM, 0);
		if (s < 0 || connect(s, (struct sockaddr *)&a, sizeof a))
			die("connect");
		setsockopt(s, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
		for (long i = 0; i < n; i++) {
			xfer(s, &c, 1);
			xfer(s, &c, 0);
		}
		_exit(0);
	}
	int s = accept(l, NULL, NULL);
	if (s < 0)
		die("accept");
	setsockopt(s, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
	for (long i = 0; i < n; i++) {
		xfer(s, &c, 0);
		xfer(s, &c, 1);
	}
	int st;
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
		die("client");
	printf("net_pingpong: %ld round trips\n", n);
	return 0;
}
