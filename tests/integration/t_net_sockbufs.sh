#!/bin/bash
# SO_SNDBUF, SO_RCVBUF and their FORCE forms on simulated TCP and UDP
# sockets answer as sk_setsockopt does (sock_bufs checks every result
# against its rule with the sysctls it reads: capped at wmem_max/rmem_max
# as an unsigned number, a forced size only made non-negative, doubled,
# at least the least buffer; getsockopt of a FORCE name is ENOPROTOOPT,
# and the FORCE names need CAP_NET_ADMIN): the same output natively and
# under dsim on seeds 1-3, one hash twice. Under dsim the sysctls are a
# machine's own, Linux's defaults whatever the host's (this host's
# wmem_max may be larger): /proc/sys/net/core reads 212992 for all four
# and a request of 5000000 bytes reads back 425984. No real network: see
# netns.sh.
. "$(dirname "$0")/netns.sh"
. "$(dirname "$0")/lib.sh"
net_dsim_wrapper 120
prog=$(build sock_bufs)
native_net_ok "$prog"
h=$(dsim_as_native --seeds "2 3" "$prog") || exit 1
dsim_exec 1 "$prog" values >"$TMP/values.out" || { cat "$TMP/exec.err"; fail "sock_bufs values failed"; }
grep -qx "wmem_max 212992 rmem_max 212992 wmem_default 212992 rmem_default 212992" "$TMP/values.out" ||
    fail "the machine's sysctls: $(head -n 1 "$TMP/values.out")"
for want in "tcp SO_SNDBUF 5000000: 425984" "udp SO_RCVBUF 5000000: 425984" "tcp SO_SNDBUF -5: 425984" \
    "tcp SO_SNDBUFFORCE 5000000: 10000000" "udp SO_RCVBUF 1000: 2304"; do
    grep -qx "$want" "$TMP/values.out" || fail "expected \"$want\": $(grep "${want%:*}:" "$TMP/values.out")"
done
note "as natively, hash $h; sysctls and sizes Linux's defaults under dsim"
