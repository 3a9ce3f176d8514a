#!/bin/bash
# TCP connects to machines that are not there (connect_down), as Linux's
# SYN retransmissions (1, 2, 4, 8, 16, 32 s; tcp_syn_retries = 6) make them
# end: a non-blocking connect to a machine that starts at 20 s completes at
# 31 s (the retransmission that finds it), one to a machine down for a
# crash completes once it is back, a blocking or non-blocking connect to a
# machine that has exited fails with ETIMEDOUT after 127 s (non-blocking:
# POLLOUT with SO_ERROR), and a running machine with no listener refuses at
# once. One seed gives one hash. No real network: see netns.sh.
. "$(dirname "$0")/netns.sh"
. "$(dirname "$0")/lib.sh"
net_dsim_wrapper 120
prog=$(build connect_down)
write_conf "$TMP/down.conf" <<CONF
[simulation]
duration = 500s
[machine late]
command = $prog server 7000
start = 20s
[machine gone]
command = true
[machine idle]
command = sleep 450
daemon = true
[machine crashy]
command = $prog server 7001
command-after-restart = $prog server 7001
[fault power]
kind = crash
at = 5s
machine = crashy
duration = 10s
[machine client]
command = $prog late late 7000; $prog blocking gone 7000; $prog late gone 7000; $prog blocking idle 7000; sleep 1; $prog late crashy 7001
CONF
"$DSIM" replay "$TMP/down.conf" 1 --output "$TMP/out" >"$TMP/replay.out" 2>&1 || { cat "$TMP/replay.out" >&2; fail "seed 1 failed"; }
out="$TMP/out/seed-1/client.stdout"
expect() { grep -qx "$1" "$out" || { cat "$out" >&2; fail "expected: $1"; }; }
[ "$(sed -n 2p "$out")" = "poll 1 revents_out 1 so_error 0 after 31 s" ] || { cat "$out" >&2; fail "late machine"; }
expect "connect ETIMEDOUT after 127 s"
expect "poll 1 revents_out 1 so_error ETIMEDOUT after 127 s"
expect "connect ECONNREFUSED after 0 s"
[ "$(tail -n 1 "$out")" != "poll 1 revents_out 1 so_error ETIMEDOUT after 127 s" ] || fail "the crashed machine was never reached"
tail -n 1 "$out" | grep -q "so_error 0 after" || { cat "$out" >&2; fail "connect to the restarted machine"; }
grep -q "server accepted 1" "$TMP/out/seed-1/late.stdout" || fail "the late server accepted nothing"
h=$(one_hash "$TMP/down.conf" 1) || exit 1
note "SYN retransmissions as Linux's; hash $h"
