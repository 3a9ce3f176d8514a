#!/bin/bash
# Simulated TCP and UDP sockets at their edges answer as Linux does
# (sock_edges): getsockname with a NULL address or length (EFAULT), send on
# an unconnected TCP socket (EPIPE and SIGPIPE unless MSG_NOSIGNAL), recv on
# one (ENOTCONN), the TCP error queue (EAGAIN), MSG_OOB on UDP (EOPNOTSUPP
# to send, ignored to receive), a bad recvfrom address on TCP (ignored),
# multicast memberships on TCP (EPROTO), connect(AF_UNSPEC) dissolving a
# TCP connection, UDP-Lite, and ports below 1024 for a user without
# CAP_NET_BIND_SERVICE (EACCES). Native = dsim on two seeds; one seed, one
# hash. No real network: see netns.sh.
. "$(dirname "$0")/netns.sh"
. "$(dirname "$0")/lib.sh"
net_dsim_wrapper 60
prog=$(build sock_edges)
h=$(as_native "$prog") || exit 1
note "as natively; hash $h twice"
