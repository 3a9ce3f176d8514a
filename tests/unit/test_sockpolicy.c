/* Unit tests for which sockets a machine may have (net/model/sockpolicy.c):
 * the errnos and their order are those of Linux 6.x for a kernel without
 * the refused families (checked against socket(2) on a native kernel). */
#include <check.h>
#include <errno.h>
#include <linux/netlink.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "net/model/sockpolicy.h"
#include "tests/unit/suite.h"

#ifndef AF_VSOCK
#define AF_VSOCK 40
#endif
#ifndef AF_XDP
#define AF_XDP 44
#endif

/* TCP and UDP are the simulation's; AF_UNIX and routing netlink the kernel's. */
START_TEST(test_allowed)
{
	ck_assert_int_eq(sock_policy(AF_INET, SOCK_STREAM, 0), SOCK_SIMULATED);
	ck_assert_int_eq(sock_policy(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, IPPROTO_TCP), SOCK_SIMULATED);
	ck_assert_int_eq(sock_policy(AF_INET, SOCK_DGRAM, IPPROTO_UDP), SOCK_SIMULATED);
	ck_assert_int_eq(sock_policy(AF_UNIX, SOCK_SEQPACKET, 0), SOCK_KERNEL);
	ck_assert_int_eq(sock_policy(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE), SOCK_KERNEL);
	ck_assert_int_eq(sock_policy(AF_NETLINK, SOCK_DGRAM, NETLINK_ROUTE), SOCK_KERNEL);
}
END_TEST

/* Families that reach the host answer as a kernel without them. */
START_TEST(test_families_refused)
{
	static const int refused[] = { AF_VSOCK, AF_PACKET, AF_BLUETOOTH, AF_CAN, AF_XDP, AF_ALG, AF_KEY,
	                               AF_TIPC, AF_RDS, AF_SMC, AF_KCM, AF_QIPCRTR, AF_APPLETALK, AF_X25 };
	for (unsigned i = 0; i < sizeof refused / sizeof *refused; i++) {
		ck_assert_int_eq(sock_policy(refused[i], SOCK_STREAM, 0), -EAFNOSUPPORT);
		ck_assert_int_eq(sock_policy(refused[i], SOCK_DGRAM, 0), -EAFNOSUPPORT);
		ck_assert_int_eq(sock_policy(refused[i], SOCK_RAW, 3), -EAFNOSUPPORT);
		ck_assert_int_eq(sock_pair_policy(refused[i], SOCK_STREAM, 0), -EAFNOSUPPORT);
	}
	/* Out of the kernel's range: EAFNOSUPPORT before the type is looked at. */
	ck_assert_int_eq(sock_policy(-1, SOCK_STREAM, 0), -EAFNOSUPPORT);
	ck_assert_int_eq(sock_policy(46, 12, 0), -EAFNOSUPPORT);
	ck_assert_int_eq(sock_policy(1000, SOCK_STREAM, 0), -EAFNOSUPPORT);
	/* AF_INET with the legacy SOCK_PACKET type is a packet socket. */
	ck_assert_int_eq(sock_policy(AF_INET, SOCK_PACKET, 0x300), -EAFNOSUPPORT);
}
END_TEST

/* Linux's order: unknown flags, the family's range, the type's range. */
START_TEST(test_order)
{
	ck_assert_int_eq(sock_policy(AF_VSOCK, SOCK_STREAM | 0x100000, 0), -EINVAL);
	ck_assert_int_eq(sock_policy(1000, SOCK_STREAM | 0x100000, 0), -EINVAL);
	ck_assert_int_eq(sock_policy(AF_VSOCK, 11, 0), -EINVAL);
	ck_assert_int_eq(sock_policy(AF_INET, 15, 0), -EINVAL);
	ck_assert_int_eq(sock_policy(AF_UNIX, 12, 0), -EINVAL);
}
END_TEST

/* Inet types and protocols dsim does not simulate. */
START_TEST(test_inet_refused)
{
	ck_assert_int_eq(sock_policy(AF_INET, SOCK_RAW, IPPROTO_ICMP), -EPERM);
	ck_assert_int_eq(sock_policy(AF_INET6, SOCK_RAW, IPPROTO_RAW), -EPERM);
	ck_assert_int_eq(sock_policy(AF_INET, SOCK_RAW, 0), -EPROTONOSUPPORT);
	ck_assert_int_eq(sock_policy(AF_INET, SOCK_DGRAM, IPPROTO_ICMP), -EACCES);
	ck_assert_int_eq(sock_policy(AF_INET6, SOCK_DGRAM, IPPROTO_ICMPV6), -EACCES);
	ck_assert_int_eq(sock_policy(AF_INET6, SOCK_DGRAM, IPPROTO_ICMP), -EPROTONOSUPPORT);
	ck_assert_int_eq(sock_policy(AF_INET, SOCK_STREAM, IPPROTO_SCTP), -EPROTONOSUPPORT);
	ck_assert_int_eq(sock_policy(AF_INET, SOCK_STREAM, 262 /* MPTCP */), -EPROTONOSUPPORT);
	ck_assert_int_eq(sock_policy(AF_INET, SOCK_DGRAM, IPPROTO_TCP), -EPROTONOSUPPORT);
	ck_assert_int_eq(sock_policy(AF_INET, SOCK_STREAM, 999), -EINVAL);
	ck_assert_int_eq(sock_policy(AF_INET, SOCK_STREAM, -1), -EINVAL);
	ck_assert_int_eq(sock_policy(AF_INET, SOCK_SEQPACKET, 0), -ESOCKTNOSUPPORT);
	ck_assert_int_eq(sock_policy(AF_INET6, SOCK_RDM, 0), -ESOCKTNOSUPPORT);
}
END_TEST

/* Netlink: the routing family only. */
START_TEST(test_netlink)
{
	static const int refused[] = { NETLINK_AUDIT, NETLINK_KOBJECT_UEVENT, NETLINK_GENERIC, NETLINK_CONNECTOR,
	                               NETLINK_NETFILTER, NETLINK_CRYPTO, NETLINK_SOCK_DIAG, NETLINK_XFRM,
	                               NETLINK_SELINUX, NETLINK_USERSOCK, NETLINK_RDMA, 31 };
	for (unsigned i = 0; i < sizeof refused / sizeof *refused; i++)
		ck_assert_int_eq(sock_policy(AF_NETLINK, SOCK_RAW, refused[i]), -EPROTONOSUPPORT);
	ck_assert_int_eq(sock_policy(AF_NETLINK, SOCK_RAW, 32), -EPROTONOSUPPORT);
	ck_assert_int_eq(sock_policy(AF_NETLINK, SOCK_STREAM, NETLINK_ROUTE), -ESOCKTNOSUPPORT);
	ck_assert_int_eq(sock_policy(AF_NETLINK, SOCK_STREAM, NETLINK_AUDIT), -ESOCKTNOSUPPORT);
}
END_TEST

/* socketpair: AF_UNIX only; the rest as socket(), then EOPNOTSUPP. */
START_TEST(test_pairs)
{
	ck_assert_int_eq(sock_pair_policy(AF_UNIX, SOCK_STREAM, 0), SOCK_KERNEL);
	ck_assert_int_eq(sock_pair_policy(AF_INET, SOCK_STREAM, 0), -EOPNOTSUPP);
	ck_assert_int_eq(sock_pair_policy(AF_INET6, SOCK_DGRAM, 0), -EOPNOTSUPP);
	ck_assert_int_eq(sock_pair_policy(AF_INET, SOCK_SEQPACKET, 0), -ESOCKTNOSUPPORT);
	ck_assert_int_eq(sock_pair_policy(AF_NETLINK, SOCK_RAW, NETLINK_ROUTE), -EOPNOTSUPP);
	ck_assert_int_eq(sock_pair_policy(AF_NETLINK, SOCK_RAW, NETLINK_AUDIT), -EPROTONOSUPPORT);
}
END_TEST

int main(void)
{
	return RUN_TESTS("sockpolicy", test_allowed, test_families_refused, test_order,
			 test_inet_refused, test_netlink, test_pairs);
}
