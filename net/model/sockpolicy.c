/* Which sockets a machine may have (sockpolicy.h). */
#include "net/model/sockpolicy.h"
#include <errno.h>
#include <linux/netlink.h>
#include <netinet/in.h>
#include <sys/socket.h>

#define SOCK_TYPE_MASK 0xf
#define KERNEL_NPROTO 46        /* AF_MAX of Linux 6.x */
#define KERNEL_SOCK_MAX 11
#define INET_PROTO_MAX 263      /* IPPROTO_MAX: inet_create's range */
#define NETLINK_LINKS 32        /* MAX_LINKS */

/* inet_create and inet6_create, for the protocols a machine can have. */
static int inet_policy(int family, int type, int protocol)
{
    if (protocol < 0 || protocol >= INET_PROTO_MAX) return -EINVAL;
    switch (type) {
    case SOCK_STREAM:
        return protocol == 0 || protocol == IPPROTO_TCP ? SOCK_SIMULATED : -EPROTONOSUPPORT;
    case SOCK_DGRAM:
        /* UDP-Lite is UDP with a partial checksum: on a network with no
         * bit errors, the same. */
        if (protocol == 0 || protocol == IPPROTO_UDP || protocol == IPPROTO_UDPLITE) return SOCK_SIMULATED;
        /* ping sockets: refused by the default ping_group_range ("1 0") */
        if (protocol == (family == AF_INET ? IPPROTO_ICMP : IPPROTO_ICMPV6)) return -EACCES;
        return -EPROTONOSUPPORT;
    case SOCK_RAW:
        /* a raw socket wants CAP_NET_RAW, which machines do not have */
        return protocol == 0 ? -EPROTONOSUPPORT : -EPERM;
    default:
        return -ESOCKTNOSUPPORT;
    }
}

/* netlink_create: only the routing family, which shows the machine's own
 * network namespace. Audit, uevents, connector, generic netlink (thermal,
 * nl80211, taskstats), netfilter, crypto, sock_diag and the rest answer as
 * a kernel built without them. */
static int netlink_policy(int type, int protocol)
{
    if (type != SOCK_RAW && type != SOCK_DGRAM) return -ESOCKTNOSUPPORT;
    if (protocol < 0 || protocol >= NETLINK_LINKS) return -EPROTONOSUPPORT;
    return protocol == NETLINK_ROUTE ? SOCK_KERNEL : -EPROTONOSUPPORT;
}

int sock_policy(int family, int type, int protocol)
{
    if (type & ~(SOCK_TYPE_MASK | SOCK_CLOEXEC | SOCK_NONBLOCK)) return -EINVAL;
    type &= SOCK_TYPE_MASK;
    if (family < 0 || family >= KERNEL_NPROTO) return -EAFNOSUPPORT;
    if (type >= KERNEL_SOCK_MAX) return -EINVAL;
    if (family == AF_INET && type == SOCK_PACKET) return -EAFNOSUPPORT;    /* the kernel makes it AF_PACKET */
    switch (family) {
    case AF_UNIX: return SOCK_KERNEL;
    case AF_NETLINK: return netlink_policy(type, protocol);
    case AF_INET:
    case AF_INET6: return inet_policy(family, type, protocol);
    default: return -EAFNOSUPPORT;
    }
}

int sock_pair_policy(int family, int type, int protocol)
{
    int v = sock_policy(family, type, protocol);
    if (v < 0) return v;
    return family == AF_UNIX ? SOCK_KERNEL : -EOPNOTSUPP;
}
