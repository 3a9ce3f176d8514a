/* sock_outq: SIOCOUTQ, SIOCOUTQNSD and SIOCINQ on TCP sockets (made,
 * listening, connected and idle, after its peer read all it was sent) and
 * a UDP socket, as natively.
 * sock_outq peer PORT / sock_outq to HOST PORT: two machines; "to" writes
 * 100 bytes and says its queues right after (the bytes in the network:
 * unacknowledged, none unsent) and once "peer", 100 ms later, read them. */
#include "netcheck.h"
#include <linux/sockios.h>
#include <sys/ioctl.h>

static void queues(const char *tag, int fd)
{
	int v = -7, r = ioctl(fd, SIOCOUTQ, &v), e = errno;
	int w = -7, r2 = ioctl(fd, SIOCOUTQNSD, &w), e2 = errno;
	int x = -7, r3 = ioctl(fd, SIOCINQ, &x), e3 = errno;
	printf("%s: SIOCOUTQ %s %d, SIOCOUTQNSD %s %d, SIOCINQ %s %d\n", tag, r ? errname(e) : "0", r ? 0 : v,
	       r2 ? errname(e2) : "0", r2 ? 0 : w, r3 ? errname(e3) : "0", r3 ? 0 : x);
}

int main(int argc, char **argv)
{
	require_lo_only();
	char buf[100] = { 0 };
	if (argc > 2 && !strcmp(argv[1], "peer")) {
		int l = listen_on("0.0.0.0", atoi(argv[2]), SOCK_STREAM), a = accept(l, NULL, NULL);
		sleep_ms(100);
		printf("peer read %zu\n", read_full(a, buf, sizeof buf));
		return 0;
	}
	if (argc > 3 && !strcmp(argv[1], "to")) {
		int c = connect_retry(argv[2], atoi(argv[3]), 100);
		if (c < 0)
			die("connect");
		write_all(c, buf, sizeof buf);
		queues("right after writing 100 bytes", c);
		sleep_ms(300);
		queues("after the peer read them", c);
		return 0;
	}
	int made = socket(AF_INET, SOCK_STREAM, 0);
	queues("tcp made", made);
	int l = listen_on("127.0.0.1", 7700, SOCK_STREAM);
	queues("tcp listening", l);
	int c = connect_retry("127.0.0.1", 7700, 1);
	if (c < 0)
		die("connect");
	int a = accept(l, NULL, NULL);
	if (a < 0)
		die("accept");
	queues("tcp connected, idle", c);
	write_all(c, buf, sizeof buf);
	if (read_full(a, buf, sizeof buf) != sizeof buf)
		die("read");
	sleep_ms(50);
	queues("tcp after the peer read them", c);
	queues("tcp the peer", a);
	int u = socket(AF_INET, SOCK_DGRAM, 0);
	queues("udp", u);
	printf("ok\n");
	return 0;
}
