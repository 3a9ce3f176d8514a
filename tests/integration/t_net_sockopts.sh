#!/bin/bash
# setsockopt and getsockopt of simulated TCP and UDP sockets answer as
# Linux's do (sock_opts: booleans read back as 0 or 1, SO_RCVLOWAT's 0 and
# negative sizes, SO_SNDLOWAT refused, the timeouts' checks and rounding to
# the kernel's tick, SO_LINGER's length and flag, IP_TTL and
# IPV6_UNICAST_HOPS ranges, TCP_MAXSEG, keepalive, TCP_SYNCNT,
# TCP_USER_TIMEOUT ranges, TCP_DEFER_ACCEPT's retransmissions,
# TCP_WINDOW_CLAMP, short getsockopt rooms; unknown and read-only options
# and levels another protocol's, SO_PEERCRED, SO_COOKIE, SO_BINDTODEVICE,
# TCP_CONGESTION, TCP_INFO): the same output natively and under dsim on
# seeds 1-3, one hash twice. Under dsim the values that follow sysctls or
# the kernel's build are Linux's defaults whatever the host's (cubic, and
# reno, the congestion controls; 6.1's TCP_INFO, 232 bytes; and so are the
# sysctls in the machine's /proc/sys/net they follow), and a read with
# a 1.5 ms SO_RCVTIMEO waits 4 ms of virtual time (HZ 250), not what the
# host's tick would make of it. No real network: see netns.sh.
. "$(dirname "$0")/netns.sh"
. "$(dirname "$0")/lib.sh"
net_dsim_wrapper 120
prog=$(build sock_opts)
native_net_ok "$prog"
h=$(dsim_as_native --seeds "2 3" "$prog") || exit 1
dsim_exec 1 "$prog" values >"$TMP/values.out" || { cat "$TMP/exec.err"; fail "sock_opts values failed"; }
for want in "TCP_KEEPIDLE default: set 0, get 0 len 4 7200" "TCP_KEEPINTVL default: set 0, get 0 len 4 75" \
    "TCP_KEEPCNT default: set 0, get 0 len 4 9" "TCP_SYNCNT default: set 0, get 0 len 4 6" \
    "IP_TTL default: set 0, get 0 len 4 64" "IPV6_UNICAST_HOPS default: set 0, get 0 len 4 64" \
    "IP_TTL -1: set 0, get 0 len 4 64" "tcp SO_RCVLOWAT -1: set 0, get 0 len 4 3145728" \
    'TCP_CONGESTION default: "cubic"; bbr: No such file or directory' "TCP_INFO: len 232" \
    "ipv4/tcp_rmem: 4096 131072 6291456" "ipv4/tcp_wmem: 4096 16384 4194304" "ipv4/tcp_congestion_control: cubic" \
    "ipv4/tcp_available_congestion_control: reno cubic" "ipv4/tcp_allowed_congestion_control: reno cubic" \
    "core/wmem_max: 212992"; do
    grep -qxF "$want" "$TMP/values.out" || fail "expected \"$want\": $(grep -F "${want%%:*}:" "$TMP/values.out")"
done
us=$(sed -n 's/^recv with SO_RCVTIMEO {0, 1500}: EAGAIN after \([0-9]*\) us$/\1/p' "$TMP/values.out")
[ -n "$us" ] && [ "$us" -ge 4000 ] && [ "$us" -lt 4200 ] ||
    fail "a read with a 1.5 ms timeout: $(grep "^recv" "$TMP/values.out")"
# A machine's tick moved (DSIM_TEST_SOCK_HZ=1000; this host's is 250): the
# wait follows dsim's rounding, not the kernel socket's.
DSIM_TEST_SOCK_HZ=1000 dsim_exec 1 "$prog" values >"$TMP/hz.out" || { cat "$TMP/exec.err"; fail "sock_opts at HZ 1000 failed"; }
hz=$(sed -n 's/^recv with SO_RCVTIMEO {0, 1500}: EAGAIN after \([0-9]*\) us$/\1/p' "$TMP/hz.out")
[ -n "$hz" ] && [ "$hz" -ge 2000 ] && [ "$hz" -lt 2200 ] || fail "at HZ 1000, a 1.5 ms timeout: $(grep "^recv" "$TMP/hz.out")"
note "as natively, hash $h; defaults Linux's, the 1.5 ms timeout waited $us us ($hz at HZ 1000)"
