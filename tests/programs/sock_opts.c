/* sock_opts [values]: setsockopt and getsockopt of TCP and UDP socket
 * options at and past their edges, each set and read back: booleans read
 * back as 0 or 1; SO_RCVLOWAT's 0 and negative sizes; SO_SNDLOWAT, which
 * cannot be set; the timeouts' checks (short, microseconds out of range,
 * negative, rounded to the kernel's tick); SO_LINGER's length and its
 * flag; IP_TTL and IPV6_UNICAST_HOPS ranges and -1; TCP_MAXSEG, the
 * keepalive options, TCP_SYNCNT and TCP_USER_TIMEOUT ranges; TCP_DEFER_ACCEPT
 * kept as retransmissions; TCP_WINDOW_CLAMP's least; a short getsockopt
 * room; unknown and read-only options, and levels of another protocol, on
 * IPv4 and IPv6 sockets; SO_PEERCRED, SO_COOKIE, SO_BINDTODEVICE,
 * TCP_CONGESTION (reno), TCP_INFO's state, IP_MTU and IPV6_MTU. One line
 * per case, the same natively and under dsim on a host with Linux's tick
 * (HZ 250: a 1.5 ms timeout reads back 4 ms); what follows the host's
 * sysctls or kernel build is printed only with "values" (defaults, a TCP
 * socket's largest SO_RCVLOWAT, the default congestion control, TCP_INFO's
 * size, how long a 1.5 ms timeout waits). */
#include "netcheck.h"
#include <netinet/tcp.h>
#include <netinet/udp.h>
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

/* Whether Linux knows the option: the set's and the get's errors only. */
static void known(int s, const char *tag, int level, int name)
{
	int v = 1, r = setsockopt(s, level, name, &v, sizeof v), e = errno;
	unsigned char out[512];
	socklen_t ol = sizeof out;
	int g = getsockopt(s, level, name, out, &ol), ge = errno;
	printf("%s: set %s, get %s\n", tag, r ? errname(e) : "0", g ? errname(ge) : "0");
}

static void get_only(int s, const char *tag, int level, int name, int room)
{
	show(tag, 0, 0, s, level, name, room);
}

/* TCP options set to an int, in order, each read back. */
static const struct { const char *tag; int name, v; } tcp_ints[] = {
	{ "TCP_NODELAY", TCP_NODELAY, 5 }, { "TCP_CORK", TCP_CORK, 2 }, { "TCP_CORK", TCP_CORK, 0 },
	{ "TCP_MAXSEG", TCP_MAXSEG, 87 }, { "TCP_MAXSEG", TCP_MAXSEG, 32768 }, { "TCP_MAXSEG", TCP_MAXSEG, 1000 },
	{ "TCP_KEEPIDLE", TCP_KEEPIDLE, 0 }, { "TCP_KEEPIDLE", TCP_KEEPIDLE, 32768 },
	{ "TCP_KEEPCNT", TCP_KEEPCNT, 128 }, { "TCP_KEEPINTVL", TCP_KEEPINTVL, 30 },
	{ "TCP_USER_TIMEOUT", TCP_USER_TIMEOUT, -1 }, { "TCP_USER_TIMEOUT", TCP_USER_TIMEOUT, 5 },
	{ "TCP_DEFER_ACCEPT", TCP_DEFER_ACCEPT, -1 }, { "TCP_DEFER_ACCEPT", TCP_DEFER_ACCEPT, 2 },
	{ "TCP_DEFER_ACCEPT", TCP_DEFER_ACCEPT, 5 }, { "TCP_DEFER_ACCEPT", TCP_DEFER_ACCEPT, 8 },
	{ "TCP_DEFER_ACCEPT", TCP_DEFER_ACCEPT, 200 },
	{ "TCP_SYNCNT", TCP_SYNCNT, 0 }, { "TCP_SYNCNT", TCP_SYNCNT, 128 }, { "TCP_SYNCNT", TCP_SYNCNT, 3 },
	{ "TCP_WINDOW_CLAMP", TCP_WINDOW_CLAMP, 10 }, { "TCP_WINDOW_CLAMP", TCP_WINDOW_CLAMP, -4 },
	{ "TCP_WINDOW_CLAMP", TCP_WINDOW_CLAMP, 0 },
};

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
		char ca[16] = { 0 };
		socklen_t cal = sizeof ca;
		getsockopt(s, IPPROTO_TCP, TCP_CONGESTION, ca, &cal);
		printf("TCP_CONGESTION default: \"%s\"; bbr: %s\n", ca,
		       setsockopt(s, IPPROTO_TCP, TCP_CONGESTION, "bbr", 3) ? errname(errno) : "0");
		unsigned char info[512];
		socklen_t il = sizeof info;
		getsockopt(s, IPPROTO_TCP, TCP_INFO, info, &il);
		printf("TCP_INFO: len %u\n", il);
		/* The sysctls those follow, as the machine's /proc shows them. */
		static const char *const sysctls[] = { "ipv4/tcp_rmem", "ipv4/tcp_wmem", "ipv4/tcp_congestion_control",
							"ipv4/tcp_available_congestion_control",
							"ipv4/tcp_allowed_congestion_control", "core/wmem_max" };
		for (size_t i = 0; i < sizeof sysctls / sizeof *sysctls; i++) {
			char path[128], line[128] = "";
			snprintf(path, sizeof path, "/proc/sys/net/%s", sysctls[i]);
			FILE *f = fopen(path, "r");
			if (!f || !fgets(line, sizeof line, f))
				die(path);
			fclose(f);
			line[strcspn(line, "\n")] = 0;
			for (char *p = line; *p; p++)
				if (*p == '\t')
					*p = ' ';
			printf("%s: %s\n", sysctls[i], line);
		}
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
		known(s, "SOL_SOCKET 9999", SOL_SOCKET, 9999);
		known(s, "SO_TYPE", SOL_SOCKET, SO_TYPE);
		known(s, "SO_ERROR", SOL_SOCKET, SO_ERROR);
		known(s, "SO_ACCEPTCONN", SOL_SOCKET, SO_ACCEPTCONN);
		known(s, "SO_DOMAIN", SOL_SOCKET, SO_DOMAIN);
		known(s, "SO_PROTOCOL", SOL_SOCKET, SO_PROTOCOL);
		known(s, "SO_PEERCRED", SOL_SOCKET, SO_PEERCRED);
		known(s, "SO_COOKIE", SOL_SOCKET, SO_COOKIE);
		known(s, "SO_PRIORITY", SOL_SOCKET, SO_PRIORITY);
		known(s, "IP 9999", IPPROTO_IP, 9999);
		known(s, "IP_MTU", IPPROTO_IP, IP_MTU);
		known(s, "IPV6_V6ONLY on IPv4", IPPROTO_IPV6, IPV6_V6ONLY);
		known(s, "TCP 9999", IPPROTO_TCP, 9999);
		known(s, "TCP_INFO", IPPROTO_TCP, TCP_INFO);
		known(s, "UDP 9999", IPPROTO_UDP, 9999);
		known(s, "UDP_CORK", IPPROTO_UDP, UDP_CORK);
		known(s, "UDP_SEGMENT", IPPROTO_UDP, UDP_SEGMENT);
		{
			struct ucred cr;
			socklen_t cl = sizeof cr;
			int g = getsockopt(s, SOL_SOCKET, SO_PEERCRED, &cr, &cl);
			printf("SO_PEERCRED: %s len %u {%d, %d, %d}\n", g ? errname(errno) : "0", cl, (int)cr.pid,
			       (int)cr.uid, (int)cr.gid);
			unsigned long long c1 = 0, c2 = 0;
			int s2 = socket(AF_INET, ty ? SOCK_DGRAM : SOCK_STREAM, 0);
			socklen_t l1 = sizeof c1, l2 = sizeof c2;
			getsockopt(s, SOL_SOCKET, SO_COOKIE, &c1, &l1);
			getsockopt(s2, SOL_SOCKET, SO_COOKIE, &c2, &l2);
			unsigned long long c1b = 0;
			socklen_t l1b = sizeof c1b;
			getsockopt(s, SOL_SOCKET, SO_COOKIE, &c1b, &l1b);
			printf("SO_COOKIE: len %u, nonzero %d, its own %d, another socket's differs %d\n", l1, c1 != 0,
			       c1 == c1b, c1 != c2);
			close(s2);
			char dev[32];
			socklen_t dl = sizeof dev;
			int g1 = getsockopt(s, SOL_SOCKET, SO_BINDTODEVICE, dev, &dl);
			printf("SO_BINDTODEVICE unbound: %s len %u\n", g1 ? errname(errno) : "0", dl);
			int r = setsockopt(s, SOL_SOCKET, SO_BINDTODEVICE, "lo", 3);
			dl = sizeof dev;
			memset(dev, 0, sizeof dev);
			g1 = getsockopt(s, SOL_SOCKET, SO_BINDTODEVICE, dev, &dl);
			printf("SO_BINDTODEVICE lo: %s, get %s len %u \"%s\"\n", r ? errname(errno) : "0", g1 ? "?" : "0", dl, dev);
			r = setsockopt(s, SOL_SOCKET, SO_BINDTODEVICE, "eth9", 5);
			printf("SO_BINDTODEVICE eth9: %s\n", r ? errname(errno) : "0");
			r = setsockopt(s, SOL_SOCKET, SO_BINDTODEVICE, "", 0);
			dl = sizeof dev;
			g1 = getsockopt(s, SOL_SOCKET, SO_BINDTODEVICE, dev, &dl);
			printf("SO_BINDTODEVICE \"\": %s, get len %u\n", r ? errname(errno) : "0", dl);
		}
		if (!ty) {
			char ca[16] = { 0 };
			socklen_t cal = sizeof ca;
			int r = setsockopt(s, IPPROTO_TCP, TCP_CONGESTION, "reno", 4);
			int g = getsockopt(s, IPPROTO_TCP, TCP_CONGESTION, ca, &cal);
			printf("TCP_CONGESTION reno: %s, get %s len %u \"%s\"\n", r ? errname(errno) : "0", g ? "?" : "0", cal, ca);
			r = setsockopt(s, IPPROTO_TCP, TCP_CONGESTION, "nosuch", 6);
			printf("TCP_CONGESTION nosuch: %s\n", r ? errname(errno) : "0");
			cal = 4;
			g = getsockopt(s, IPPROTO_TCP, TCP_CONGESTION, ca, &cal);
			printf("TCP_CONGESTION room 4: %s len %u\n", g ? "?" : "0", cal);
			unsigned char info[8] = { 0 };
			socklen_t il = sizeof info;
			g = getsockopt(s, IPPROTO_TCP, TCP_INFO, info, &il);
			printf("TCP_INFO room 8: %s len %u state %u\n", g ? errname(errno) : "0", il, info[0]);
			for (size_t i = 0; i < sizeof tcp_ints / sizeof *tcp_ints; i++) {
				char tag[64];
				snprintf(tag, sizeof tag, "%s %d", tcp_ints[i].tag, tcp_ints[i].v);
				set_int(s, tag, IPPROTO_TCP, tcp_ints[i].name, tcp_ints[i].v);
				if (tcp_ints[i].name == TCP_CORK && !tcp_ints[i].v)
					get_only(s, "TCP_MAXSEG default", IPPROTO_TCP, TCP_MAXSEG, 64);
			}
			get_only(s, "TCP_NODELAY room 0", IPPROTO_TCP, TCP_NODELAY, 0);
		}
		close(s);
	}
	for (int ty = 0; ty < 2; ty++) {
		int s6 = socket(AF_INET6, ty ? SOCK_DGRAM : SOCK_STREAM, 0);
		printf("== IPv6 %s\n", ty ? "udp" : "tcp");
		known(s6, "UDP_CORK", IPPROTO_UDP, UDP_CORK);
		known(s6, "TCP_NODELAY", IPPROTO_TCP, TCP_NODELAY);
		known(s6, "IP_TTL", IPPROTO_IP, IP_TTL);
		known(s6, "IPV6 9999", IPPROTO_IPV6, 9999);
		known(s6, "IPV6_MTU", IPPROTO_IPV6, IPV6_MTU);
		known(s6, "IP_MTU", IPPROTO_IP, IP_MTU);
		close(s6);
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
