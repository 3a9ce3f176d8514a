/* net_outside: tries to reach addresses outside the machine and prints the
 * errno each attempt gets. It must fail cleanly: in a network namespace that
 * has only `lo` there is no route, so Linux answers ENETUNREACH at once and
 * nothing leaves the namespace. Under dsim the addresses are not machines of
 * the cluster, so they must be unreachable too. 10.0.0.200 is in the range
 * dsim gives machines (10.0.0.N) but is no machine's: not 10.0.0.1, which
 * is the first machine's address (dsim exec's only machine), where a connect
 * is refused as on any host's own address.
 *
 *   net_outside            (no arguments)
 *
 * Refuses to run (exit 3) if any interface other than lo exists: then these
 * attempts could reach a real network. Connects are non-blocking with a 2 s
 * limit, so a network that swallows packets cannot hang the program.
 * The last line is "ok" and the exit status 0 only if every attempt failed. */
#include "netcheck.h"
#include <poll.h>

/* Non-blocking connect or, for UDP, one sendto(); returns the errno. */
static int attempt(int type, const char *ip, int port, int use_connect)
{
	struct sockaddr_storage ss;
	socklen_t len = resolve(ip, port, AF_UNSPEC, &ss);
	int fd = socket(ss.ss_family, type | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return errno;
	int e = 0;
	if (!use_connect) {
		if (sendto(fd, "q", 1, 0, (struct sockaddr *)&ss, len) < 0)
			e = errno;
	} else if (connect(fd, (struct sockaddr *)&ss, len) != 0) {
		e = errno;
		if (e == EINPROGRESS) {
			struct pollfd p = { fd, POLLOUT, 0 };
			socklen_t sl = sizeof e;
			if (poll(&p, 1, 2000) <= 0)
				e = ETIMEDOUT;
			else if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &sl) != 0)
				e = errno;
		}
	}
	close(fd);
	return e;
}

int main(void)
{
	require_lo_only();
	setvbuf(stdout, NULL, _IOLBF, 0);
	static const struct {
		int type;
		const char *ip;
		int port, use_connect;
		const char *what;
	} t[] = {
		{ SOCK_STREAM, "93.184.216.34", 80, 1, "tcp connect" },
		{ SOCK_STREAM, "10.0.0.200", 80, 1, "tcp connect" },
		{ SOCK_DGRAM, "8.8.8.8", 53, 0, "udp sendto" },
		{ SOCK_DGRAM, "8.8.8.8", 53, 1, "udp connect" },
		{ SOCK_STREAM, "2606:2800:220:1:248:1893:25c8:1946", 80, 1, "tcp connect" },
		{ SOCK_DGRAM, "2001:4860:4860::8888", 53, 0, "udp sendto" },
	};
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
		int e = attempt(t[i].type, t[i].ip, t[i].port, t[i].use_connect);
		printf("%s %s port %d: %s\n", t[i].what, t[i].ip, t[i].port, e ? errname(e) : "SUCCEEDED");
		CHECK(e != 0, "reached an outside address");
	}
	return finish();
}
