#!/bin/bash
# Nothing real beyond the simulated network. sock_families opens (and at once
# closes, never binding or sending) sockets of every family that would reach
# the host: AF_VSOCK, AF_PACKET, AF_XDP, raw IP, netlink audit, uevents,
# generic netlink... Under dsim each is refused with the errno a kernel
# without it gives (EAFNOSUPPORT for a family, EPROTONOSUPPORT for a netlink
# protocol, EPERM for raw IP), in Linux's order of checks; socketpair agrees.
# What a machine keeps works as natively: TCP/UDP (simulated), AF_UNIX, and
# routing netlink, which shows the machine's own empty namespace: lo only,
# the same lines as natively (RTM_GETLINK, if_nameindex, getifaddrs).
# No real network: see netns.sh.
. "$(dirname "$0")/netns.sh"
. "$(dirname "$0")/lib.sh"
net_dsim_wrapper 60
P=$(build sock_families)

# Routing netlink: the machine's own view, as natively in an empty namespace.
native_net "$P" netlink >"$TMP/native.out" 2>&1 || { cat "$TMP/native.out" >&2; fail "netlink view failed natively"; }
grep -q '^link 1 lo up$' "$TMP/native.out" || fail "native: no lo in $(cat "$TMP/native.out")"
for seed in 1 2; do
    dsim_exec $seed "$P" netlink >"$TMP/s.out" || { cat "$TMP/s.out" "$TMP/exec.err" >&2; fail "netlink: seed $seed failed"; }
    diff "$TMP/native.out" "$TMP/s.out" >&2 || fail "netlink: seed $seed differs from native"
done
same_hash_twice 1 "$P" netlink >/dev/null || exit 1

# The families natively: this host does have vsock, packet and netlink
# audit sockets (so a pass-through would show here as "ok").
native_net "$P" families >"$TMP/native_fam.out" 2>&1 || fail "families failed natively"
grep -q '^socket(AF_PACKET, SOCK_RAW, ETH_P_ALL) ok$' "$TMP/native_fam.out" ||
    note "this host has no AF_PACKET: the refusal below is not tested against a pass-through"

cat >"$TMP/expected" <<'EOF'
socket(AF_VSOCK, SOCK_STREAM) EAFNOSUPPORT
socket(AF_VSOCK, SOCK_DGRAM) EAFNOSUPPORT
socket(AF_PACKET, SOCK_RAW, ETH_P_ALL) EAFNOSUPPORT
socket(AF_PACKET, SOCK_DGRAM) EAFNOSUPPORT
socket(AF_INET, SOCK_PACKET) EAFNOSUPPORT
socket(AF_BLUETOOTH, SOCK_RAW) EAFNOSUPPORT
socket(AF_CAN, SOCK_RAW) EAFNOSUPPORT
socket(AF_XDP, SOCK_RAW) EAFNOSUPPORT
socket(AF_ALG, SOCK_SEQPACKET) EAFNOSUPPORT
socket(AF_KEY, SOCK_RAW) EAFNOSUPPORT
socket(AF_TIPC, SOCK_RDM) EAFNOSUPPORT
socket(family 46) EAFNOSUPPORT
socket(AF_INET, SOCK_RAW, IPPROTO_ICMP) EPERM
socket(AF_INET6, SOCK_RAW, IPPROTO_RAW) EPERM
socket(AF_INET, SOCK_DGRAM, IPPROTO_ICMP) EACCES
socket(AF_INET, SOCK_SEQPACKET) ESOCKTNOSUPPORT
socket(AF_INET, SOCK_STREAM, 999) EINVAL
socket(AF_INET, SOCK_STREAM|0x100000) EINVAL
socket(AF_NETLINK, NETLINK_AUDIT) EPROTONOSUPPORT
socket(AF_NETLINK, NETLINK_KOBJECT_UEVENT) EPROTONOSUPPORT
socket(AF_NETLINK, NETLINK_GENERIC) EPROTONOSUPPORT
socket(AF_NETLINK, NETLINK_CONNECTOR) EPROTONOSUPPORT
socket(AF_NETLINK, NETLINK_NETFILTER) EPROTONOSUPPORT
socket(AF_NETLINK, NETLINK_CRYPTO) EPROTONOSUPPORT
socket(AF_NETLINK, NETLINK_SOCK_DIAG) EPROTONOSUPPORT
socket(AF_NETLINK, SOCK_STREAM) ESOCKTNOSUPPORT
socket(AF_NETLINK, NETLINK_ROUTE) ok
socket(AF_UNIX, SOCK_STREAM) ok
socket(AF_INET, SOCK_STREAM) ok
socket(AF_INET6, SOCK_DGRAM) ok
socketpair(AF_UNIX, SOCK_DGRAM) ok
socketpair(AF_INET, SOCK_STREAM) EOPNOTSUPP
socketpair(AF_INET, SOCK_SEQPACKET) ESOCKTNOSUPPORT
socketpair(AF_VSOCK, SOCK_STREAM) EAFNOSUPPORT
socketpair(AF_NETLINK, NETLINK_ROUTE) EOPNOTSUPP
socketpair(AF_PACKET, SOCK_RAW) EAFNOSUPPORT
EOF
# Lines that a kernel without those families gives natively too stay as
# natively (the checks' order, the protocols inet refuses).
for line in 'socket(AF_INET, SOCK_SEQPACKET)' 'socket(AF_INET, SOCK_STREAM, 999)' 'socket(AF_INET, SOCK_STREAM|0x100000)' \
            'socket(AF_NETLINK, SOCK_STREAM)' 'socket(family 46)' 'socketpair(AF_INET, SOCK_STREAM)' \
            'socketpair(AF_INET, SOCK_SEQPACKET)' 'socket(AF_INET, SOCK_DGRAM, IPPROTO_ICMP)'; do
    [ "$(grep -F "$line " "$TMP/native_fam.out")" = "$(grep -F "$line " "$TMP/expected")" ] ||
        fail "native and expected differ for $line"
done
for seed in 1 2 3; do
    dsim_exec $seed "$P" families >"$TMP/s.out" || { cat "$TMP/s.out" "$TMP/exec.err" >&2; fail "families: seed $seed failed"; }
    diff "$TMP/expected" "$TMP/s.out" >&2 || fail "families: seed $seed: a family that reaches the host was not refused as expected"
done
h=$(same_hash_twice 1 "$P" families) || exit 1
note "families refused; seed 1 hash $h"
