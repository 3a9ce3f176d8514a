/* Which sockets a machine may have. dsim simulates AF_INET and AF_INET6
 * stream and datagram sockets and leaves AF_UNIX and the machine's own
 * routing netlink (its empty network namespace: lo only) to the kernel;
 * every other family, type or protocol would reach something real (the
 * VM's vsock port space, the host's NICs through AF_PACKET, audit, uevents,
 * crypto) and is refused with the errno a kernel without it gives. Pure,
 * unit-tested alone. */
#ifndef DSIM_SOCKPOLICY_H
#define DSIM_SOCKPOLICY_H

enum sock_verdict {
    SOCK_SIMULATED = 1,     /* a TCP or UDP socket of the simulated network */
    SOCK_KERNEL = 2,        /* AF_UNIX, NETLINK_ROUTE: the kernel's, inside the machine */
};

/* socket(family, type, protocol), type with its SOCK_ flags: a verdict,
 * or -errno in Linux's order of checks (flags, family range, type range,
 * then the family's own). */
int sock_policy(int family, int type, int protocol);

/* socketpair(family, type, protocol): SOCK_KERNEL for AF_UNIX, or -errno
 * (a family that has no socketpair gives EOPNOTSUPP once its socket could
 * be made). */
int sock_pair_policy(int family, int type, int protocol);
#endif
