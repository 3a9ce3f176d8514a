/* sock_opts [values]: setsockopt and getsockopt of TCP and UDP socket
 * options at and past their edges, each set and read back: booleans read
 * back as 0 or 1; SO_RCVLOWAT's 0 and negative sizes; SO_SNDLOWAT, which
 * cannot be set; the timeouts' checks (short, microseconds out of range,
 * negative, rounded to the kernel's tick); SO_LINGER's length and its
 * flag; IP_TTL and IPV6_UNICAST_HOPS ranges and -1; TCP_MAXSEG, the
 * keepalive options, TCP_SYNCNT and TCP_USER_TIMEOUT ranges; TCP_DEFER_ACCEPT
 * kept as retransmissions; TCP_WINDOW_CLAMP's least; a short getsockopt
 * room. One line per case, the same natively and under dsim on a host
 * with Linux's default sysctls and tick (HZ 250: a 1.5 ms timeout reads
 * back 4 ms); values that follow the host's sysctls are printed only with
 * "values" (defaults, and a TCP socket's largest SO_RCVLOWAT). */
#include "netcheck.h"
#include <netinet/tcp.h>
#include <sys/time.h>

static void show(const char *tag, int r, int e, int s, int level, int name, int room)
{
	unsigned char out[64] = { 0 };
	socklen_t ol = (socklen_t)room;
	int g = getsockopt(s, level, name, out, &ol);
	int ge = errno, iv = 0;
	long tv[2] = { 0, 0 };
	memcpy(&iv, out, sizeof iv);
	memcpy(tv, out, sizeof tv);
	printf("%s: set %s, get %s len %u", tag, r ? errname(e) : "0", g ? errname(ge) : "0", g ? 0 : (unsigned)ol);
	if (!g && ol == 16)
		printf(" {%ld, %ld}\n", tv[0], tv[1]);
	else if (!g && ol == 8)
		printf(" {%d, %d}\n", iv, *(int *)(out + 4));
	else if (!g && ol == 1)
		printf(" %u\n", out[0]);
	else
		printf(" %d\n", g ? 0 : iv);
}

static void set_int(int s, const char *tag, int level, int name, int v)
{
	int r = setsockopt(s, level, name, &v, sizeof v);
	show(tag, r, errno, s, level, name, 64);
}

static void set_raw(int s, const char *tag, int level, int name, const void *v, socklen_t len)
{
	int r = setsockopt(s, level, name, v, len);
	show(tag, r, errno, s, level, name, 64);
}

static void get_only(int s, const char *tag, int level, int name, int room)
{
	show(tag, 0, 0, s, level, name, room);
}

int main(int argc, char **argv)
{
	require_lo_only();
	if (argc > 1 && !strcmp(argv[1], "values")) {
		int s = socket(AF_INET, SOCK_STREAM, 0), u = socket(AF_INET6, SOCK_DGRAM, 0);
		get_only(s, "TCP_KEEPIDLE default", IPPROTO_TCP, TCP_KEEPIDLE, 64);
		get_only(s, "TCP_KEEPINTVL default", IPPROTO_TCP, TCP_KEEPINTVL, 64);
		get_only(s, "TCP_KEEPCNT default", IPPROTO_TCP, TCP_KEEPCNT, 64);
		get_only(s, "TCP_SYNCNT default", IPPROTO_TCP, TCP_SYNCNT, 64);
		get_only(s, "IP_TTL default", IPPROTO_IP, IP_TTL, 64);
		get_only(u, "IPV6_UNICAST_HOPS default", IPPROTO_IPV6, IPV6_UNICAST_HOPS, 64);
		set_int(s, "IP_TTL -1", IPPROTO_IP, IP_TTL, -1);
		set_int(s, "tcp SO_RCVLOWAT -1", SOL_SOCKET, SO_RCVLOWAT, -1);
		/* How long a read waits with a 1.5 ms timeout (rounded to ticks). */
		int l = listen_on("127.0.0.1", 7501, SOCK_STREAM), c = connect_retry("127.0.0.1", 7501, 1);
		struct timeval odd = { 0, 1500 };
		struct timespec a, b;
		char byte;
		if (c < 0 || setsockopt(c, SOL_SOCKET, SO_RCVTIMEO, &odd, sizeof odd) != 0)
			die("connect and SO_RCVTIMEO");
		clock_gettime(CLOCK_MONOTONIC, &a);
		ssize_t n = recv(c, &byte, 1, 0);
		int e = errno;
		clock_gettime(CLOCK_MONOTONIC, &b);
		printf("recv with SO_RCVTIMEO {0, 1500}: %s after %ld us\n", n < 0 ? errname(e) : "data",
		       (long)((b.tv_sec - a.tv_sec) * 1000000 + (b.tv_nsec - a.tv_nsec) / 1000));
		close(l);
		return 0;
	}
	for (int ty = 0; ty < 2; ty++) {
		int s = socket(AF_INET, ty ? SOCK_DGRAM : SOCK_STREAM, 0);
		printf("== %s\n", ty ? "udp" : "tcp");
		get_only(s, "SO_RCVLOWAT default", SOL_SOCKET, SO_RCVLOWAT, 64);
		get_only(s, "SO_SNDLOWAT default", SOL_SOCKET, SO_SNDLOWAT, 64);
		get_only(s, "SO_RCVTIMEO default", SOL_SOCKET, SO_RCVTIMEO, 64);
		get_only(s, "SO_LINGER default", SOL_SOCKET, SO_LINGER, 64);
		set_int(s, "SO_RCVLOWAT 0", SOL_SOCKET, SO_RCVLOWAT, 0);
		set_int(s, "SO_RCVLOWAT 1000", SOL_SOCKET, SO_RCVLOWAT, 1000);
		if (ty)
			set_int(s, "SO_RCVLOWAT -1", SOL_SOCKET, SO_RCVLOWAT, -1);
		set_int(s, "SO_SNDLOWAT 1", SOL_SOCKET, SO_SNDLOWAT, 1);
		struct timeval bad = { 1, 2000000 }, neg = { -1, 5 }, odd = { 0, 1500 }, whole = { 3, 0 }, negu = { 1, -1 };
		set_raw(s, "SO_RCVTIMEO {3, 0}", SOL_SOCKET, SO_RCVTIMEO, &whole, sizeof whole);
		set_raw(s, "SO_RCVTIMEO {1, 2000000}", SOL_SOCKET, SO_RCVTIMEO, &bad, sizeof bad);
		set_raw(s, "SO_RCVTIMEO {1, -1}", SOL_SOCKET, SO_RCVTIMEO, &negu, sizeof negu);
		set_raw(s, "SO_RCVTIMEO short", SOL_SOCKET, SO_RCVTIMEO, &odd, 8);
		set_raw(s, "SO_SNDTIMEO {0, 1500}", SOL_SOCKET, SO_SNDTIMEO, &odd, sizeof odd);
		set_raw(s, "SO_RCVTIMEO {-1, 5}", SOL_SOCKET, SO_RCVTIMEO, &neg, sizeof neg);
		get_only(s, "SO_SNDTIMEO room 8", SOL_SOCKET, SO_SNDTIMEO, 8);
		struct linger on = { 3, 5 }, off = { 0, 9 };
		set_raw(s, "SO_LINGER short", SOL_SOCKET, SO_LINGER, &on, 4);
		set_raw(s, "SO_LINGER {3, 5}", SOL_SOCKET, SO_LINGER, &on, sizeof on);
		set_raw(s, "SO_LINGER {0, 9}", SOL_SOCKET, SO_LINGER, &off, sizeof off);
		set_int(s, "SO_KEEPALIVE 2", SOL_SOCKET, SO_KEEPALIVE, 2);
		set_int(s, "SO_REUSEADDR 5", SOL_SOCKET, SO_REUSEADDR, 5);
		set_int(s, "SO_REUSEPORT -3", SOL_SOCKET, SO_REUSEPORT, -3);
		set_int(s, "SO_BROADCAST 3", SOL_SOCKET, SO_BROADCAST, 3);
		set_int(s, "SO_OOBINLINE 7", SOL_SOCKET, SO_OOBINLINE, 7);
		set_int(s, "SO_DONTROUTE 9", SOL_SOCKET, SO_DONTROUTE, 9);
		set_raw(s, "SO_KEEPALIVE, optlen 8", SOL_SOCKET, SO_KEEPALIVE, (long[]){ 1 }, 8);
		get_only(s, "SO_KEEPALIVE room 2", SOL_SOCKET, SO_KEEPALIVE, 2);
		set_int(s, "IP_TTL 0", IPPROTO_IP, IP_TTL, 0);
		set_int(s, "IP_TTL 256", IPPROTO_IP, IP_TTL, 256);
		set_int(s, "IP_TTL 200", IPPROTO_IP, IP_TTL, 200);
		get_only(s, "IP_TTL room 1", IPPROTO_IP, IP_TTL, 1);
		set_int(s, "IP_TOS 0x10", IPPROTO_IP, IP_TOS, 0x10);
		if (!ty) {
			set_int(s, "TCP_NODELAY 5", IPPROTO_TCP, TCP_NODELAY, 5);
			set_int(s, "TCP_CORK 2", IPPROTO_TCP, TCP_CORK, 2);
			set_int(s, "TCP_CORK 0", IPPROTO_TCP, TCP_CORK, 0);
			get_only(s, "TCP_MAXSEG default", IPPROTO_TCP, TCP_MAXSEG, 64);
			set_int(s, "TCP_MAXSEG 87", IPPROTO_TCP, TCP_MAXSEG, 87);
			set_int(s, "TCP_MAXSEG 32768", IPPROTO_TCP, TCP_MAXSEG, 32768);
			set_int(s, "TCP_MAXSEG 1000", IPPROTO_TCP, TCP_MAXSEG, 1000);
			set_int(s, "TCP_KEEPIDLE 0", IPPROTO_TCP, TCP_KEEPIDLE, 0);
			set_int(s, "TCP_KEEPIDLE 32768", IPPROTO_TCP, TCP_KEEPIDLE, 32768);
			set_int(s, "TCP_KEEPCNT 128", IPPROTO_TCP, TCP_KEEPCNT, 128);
			set_int(s, "TCP_KEEPINTVL 30", IPPROTO_TCP, TCP_KEEPINTVL, 30);
			set_int(s, "TCP_USER_TIMEOUT -1", IPPROTO_TCP, TCP_USER_TIMEOUT, -1);
			set_int(s, "TCP_USER_TIMEOUT 5", IPPROTO_TCP, TCP_USER_TIMEOUT, 5);
			for (int d = -1; d <= 8; d += 3) {
				char tag[64];
				snprintf(tag, sizeof tag, "TCP_DEFER_ACCEPT %d", d);
				set_int(s, tag, IPPROTO_TCP, TCP_DEFER_ACCEPT, d);
			}
			set_int(s, "TCP_DEFER_ACCEPT 200", IPPROTO_TCP, TCP_DEFER_ACCEPT, 200);
			set_int(s, "TCP_SYNCNT 0", IPPROTO_TCP, TCP_SYNCNT, 0);
			set_int(s, "TCP_SYNCNT 128", IPPROTO_TCP, TCP_SYNCNT, 128);
			set_int(s, "TCP_SYNCNT 3", IPPROTO_TCP, TCP_SYNCNT, 3);
			set_int(s, "TCP_WINDOW_CLAMP 10", IPPROTO_TCP, TCP_WINDOW_CLAMP, 10);
			set_int(s, "TCP_WINDOW_CLAMP -4", IPPROTO_TCP, TCP_WINDOW_CLAMP, -4);
			set_int(s, "TCP_WINDOW_CLAMP 0", IPPROTO_TCP, TCP_WINDOW_CLAMP, 0);
			get_only(s, "TCP_NODELAY room 0", IPPROTO_TCP, TCP_NODELAY, 0);
		}
		close(s);
	}
	int u6 = socket(AF_INET6, SOCK_DGRAM, 0);
	set_int(u6, "IPV6_UNICAST_HOPS -2", IPPROTO_IPV6, IPV6_UNICAST_HOPS, -2);
	set_int(u6, "IPV6_UNICAST_HOPS 256", IPPROTO_IPV6, IPV6_UNICAST_HOPS, 256);
	set_int(u6, "IPV6_UNICAST_HOPS 9", IPPROTO_IPV6, IPV6_UNICAST_HOPS, 9);
	set_int(u6, "IPV6_UNICAST_HOPS -1", IPPROTO_IPV6, IPV6_UNICAST_HOPS, -1);
	/* A connected TCP socket: TCP_WINDOW_CLAMP 0 is refused. */
	int l = listen_on("127.0.0.1", 7500, SOCK_STREAM);
	int c = connect_retry("127.0.0.1", 7500, 1);
	if (c < 0)
		die("connect");
	/* (what they read back follows the connection's buffer) */
	int zero = 0;
	printf("connected TCP_WINDOW_CLAMP 0: %s\n",
	       setsockopt(c, IPPROTO_TCP, TCP_WINDOW_CLAMP, &zero, sizeof zero) ? errname(errno) : "0");
	printf("listening TCP_WINDOW_CLAMP 0: %s\n",
	       setsockopt(l, IPPROTO_TCP, TCP_WINDOW_CLAMP, &zero, sizeof zero) ? errname(errno) : "0");
	printf("ok\n");
	return 0;
}
