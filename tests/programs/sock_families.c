/* sock_families: which socket families a program can open, and what
 * routing netlink shows it.
 *
 *   sock_families families   socket() and socketpair() of each family,
 *                            type and protocol below; prints the result
 *                            ("ok" or the errno name) and closes the socket
 *                            at once: it never binds, connects or sends, so
 *                            even a socket that should have been refused
 *                            reaches nothing.
 *   sock_families netlink    the interfaces and addresses routing netlink
 *                            shows (RTM_GETLINK dump, if_nameindex,
 *                            getifaddrs): in an empty network namespace, lo.
 *
 * Refuses to run (exit 3) unless lo is its network namespace's only
 * interface. */
#include "netcheck.h"
#include <ifaddrs.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <net/if.h>

#ifndef AF_VSOCK
#define AF_VSOCK 40
#endif
#ifndef AF_XDP
#define AF_XDP 44
#endif

struct probe { const char *name; int family, type, proto; };

static const struct probe probes[] = {
	{ "AF_VSOCK, SOCK_STREAM", AF_VSOCK, SOCK_STREAM, 0 },
	{ "AF_VSOCK, SOCK_DGRAM", AF_VSOCK, SOCK_DGRAM, 0 },
	{ "AF_PACKET, SOCK_RAW, ETH_P_ALL", AF_PACKET, SOCK_RAW, 0x300 },
	{ "AF_PACKET, SOCK_DGRAM", AF_PACKET, SOCK_DGRAM, 0 },
	{ "AF_INET, SOCK_PACKET", AF_INET, SOCK_PACKET, 0x300 },
	{ "AF_BLUETOOTH, SOCK_RAW", AF_BLUETOOTH, SOCK_RAW, 0 },
	{ "AF_CAN, SOCK_RAW", AF_CAN, SOCK_RAW, 1 },
	{ "AF_XDP, SOCK_RAW", AF_XDP, SOCK_RAW, 0 },
	{ "AF_ALG, SOCK_SEQPACKET", AF_ALG, SOCK_SEQPACKET, 0 },
	{ "AF_KEY, SOCK_RAW", AF_KEY, SOCK_RAW, 2 },
	{ "AF_TIPC, SOCK_RDM", AF_TIPC, SOCK_RDM, 0 },
	{ "family 46", 46, SOCK_STREAM, 0 },
	{ "AF_INET, SOCK_RAW, IPPROTO_ICMP", AF_INET, SOCK_RAW, IPPROTO_ICMP },
	{ "AF_INET6, SOCK_RAW, IPPROTO_RAW", AF_INET6, SOCK_RAW, IPPROTO_RAW },
	{ "AF_INET, SOCK_DGRAM, IPPROTO_ICMP", AF_INET, SOCK_DGRAM, IPPROTO_ICMP },
	{ "AF_INET, SOCK_SEQPACKET", AF_INET, SOCK_SEQPACKET, 0 },
	{ "AF_INET, SOCK_STREAM, 999", AF_INET, SOCK_STREAM, 999 },
	{ "AF_INET, SOCK_STREAM|0x100000", AF_INET, SOCK_STREAM | 0x100000, 0 },
	{ "AF_NETLINK, NETLINK_AUDIT", AF_NETLINK, SOCK_RAW, NETLINK_AUDIT },
	{ "AF_NETLINK, NETLINK_KOBJECT_UEVENT", AF_NETLINK, SOCK_DGRAM, NETLINK_KOBJECT_UEVENT },
	{ "AF_NETLINK, NETLINK_GENERIC", AF_NETLINK, SOCK_RAW, NETLINK_GENERIC },
	{ "AF_NETLINK, NETLINK_CONNECTOR", AF_NETLINK, SOCK_DGRAM, NETLINK_CONNECTOR },
	{ "AF_NETLINK, NETLINK_NETFILTER", AF_NETLINK, SOCK_RAW, NETLINK_NETFILTER },
	{ "AF_NETLINK, NETLINK_CRYPTO", AF_NETLINK, SOCK_RAW, NETLINK_CRYPTO },
	{ "AF_NETLINK, NETLINK_SOCK_DIAG", AF_NETLINK, SOCK_RAW, NETLINK_SOCK_DIAG },
	{ "AF_NETLINK, SOCK_STREAM", AF_NETLINK, SOCK_STREAM, NETLINK_ROUTE },
	/* What a machine keeps. */
	{ "AF_NETLINK, NETLINK_ROUTE", AF_NETLINK, SOCK_RAW, NETLINK_ROUTE },
	{ "AF_UNIX, SOCK_STREAM", AF_UNIX, SOCK_STREAM, 0 },
	{ "AF_INET, SOCK_STREAM", AF_INET, SOCK_STREAM, 0 },
	{ "AF_INET6, SOCK_DGRAM", AF_INET6, SOCK_DGRAM, 0 },
};

static const char *result(int r)
{
	return r >= 0 ? "ok" : strerrorname_np(errno);
}

static void families(void)
{
	for (unsigned i = 0; i < sizeof probes / sizeof *probes; i++) {
		const struct probe *p = &probes[i];
		int fd = socket(p->family, p->type | SOCK_CLOEXEC, p->proto);
		printf("socket(%s) %s\n", p->name, result(fd));
		if (fd >= 0) close(fd);
	}
	static const struct probe pairs[] = {
		{ "AF_UNIX, SOCK_DGRAM", AF_UNIX, SOCK_DGRAM, 0 },
		{ "AF_INET, SOCK_STREAM", AF_INET, SOCK_STREAM, 0 },
		{ "AF_INET, SOCK_SEQPACKET", AF_INET, SOCK_SEQPACKET, 0 },
		{ "AF_VSOCK, SOCK_STREAM", AF_VSOCK, SOCK_STREAM, 0 },
		{ "AF_NETLINK, NETLINK_ROUTE", AF_NETLINK, SOCK_RAW, NETLINK_ROUTE },
		{ "AF_PACKET, SOCK_RAW", AF_PACKET, SOCK_RAW, 0 },
	};
	for (unsigned i = 0; i < sizeof pairs / sizeof *pairs; i++) {
		int sv[2];
		int r = socketpair(pairs[i].family, pairs[i].type | SOCK_CLOEXEC, pairs[i].proto, sv);
		printf("socketpair(%s) %s\n", pairs[i].name, result(r));
		if (r == 0) { close(sv[0]); close(sv[1]); }
	}
}

/* RTM_GETLINK dump: "link INDEX NAME" per interface. */
static int dump_links(void)
{
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (fd < 0) { printf("netlink socket %s\n", strerrorname_np(errno)); return 1; }
	struct { struct nlmsghdr h; struct ifinfomsg i; } req = {
		{ sizeof req, RTM_GETLINK, NLM_F_REQUEST | NLM_F_DUMP, 1, 0 }, { .ifi_family = AF_UNSPEC } };
	struct sockaddr_nl to = { .nl_family = AF_NETLINK };
	if (sendto(fd, &req, sizeof req, 0, (struct sockaddr *)&to, sizeof to) < 0) {
		printf("netlink send %s\n", strerrorname_np(errno));
		return 1;
	}
	char buf[32768];
	for (;;) {
		ssize_t n = recv(fd, buf, sizeof buf, 0);
		if (n <= 0) { printf("netlink recv %s\n", n < 0 ? strerrorname_np(errno) : "EOF"); return 1; }
		for (struct nlmsghdr *h = (struct nlmsghdr *)buf; NLMSG_OK(h, (size_t)n); h = NLMSG_NEXT(h, n)) {
			if (h->nlmsg_type == NLMSG_DONE) { close(fd); return 0; }
			if (h->nlmsg_type == NLMSG_ERROR) { printf("netlink error\n"); return 1; }
			if (h->nlmsg_type != RTM_NEWLINK) continue;
			struct ifinfomsg *ifi = NLMSG_DATA(h);
			int len = (int)IFLA_PAYLOAD(h);
			for (struct rtattr *a = IFLA_RTA(ifi); RTA_OK(a, len); a = RTA_NEXT(a, len))
				if (a->rta_type == IFLA_IFNAME)
					printf("link %d %s%s\n", ifi->ifi_index, (char *)RTA_DATA(a),
					       ifi->ifi_flags & IFF_UP ? " up" : "");
		}
	}
}

static void netlink_view(void)
{
	if (dump_links()) return;
	struct if_nameindex *ni = if_nameindex();
	for (struct if_nameindex *p = ni; p && p->if_index; p++) printf("if_nameindex %u %s\n", p->if_index, p->if_name);
	if (ni) if_freenameindex(ni);
	struct ifaddrs *ifa;
	if (getifaddrs(&ifa) != 0) { printf("getifaddrs %s\n", strerrorname_np(errno)); return; }
	for (struct ifaddrs *p = ifa; p; p = p->ifa_next) {
		char host[64] = "-";
		if (p->ifa_addr && (p->ifa_addr->sa_family == AF_INET || p->ifa_addr->sa_family == AF_INET6))
			getnameinfo(p->ifa_addr, p->ifa_addr->sa_family == AF_INET ? sizeof(struct sockaddr_in)
			                                                         : sizeof(struct sockaddr_in6),
			            host, sizeof host, NULL, 0, NI_NUMERICHOST);
		printf("ifaddr %s family %d %s\n", p->ifa_name, p->ifa_addr ? p->ifa_addr->sa_family : -1, host);
	}
	freeifaddrs(ifa);
}

int main(int argc, char **argv)
{
	require_lo_only();
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 2 && !strcmp(argv[1], "families")) families();
	else if (argc == 2 && !strcmp(argv[1], "netlink")) netlink_view();
	else { fprintf(stderr, "usage: sock_families families|netlink\n"); return 2; }
	return 0;
}
