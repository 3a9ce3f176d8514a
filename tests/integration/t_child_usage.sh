#!/bin/bash
# CPU time across processes and threads (child_usage): wait4's rusage, the
# child's SIGCHLD (si_utime + si_stime, to a handler and read from a
# signalfd), getrusage(RUSAGE_CHILDREN) and times() agree on a waited-for
# child's time, as natively, and under dsim it is the child's steps (not
# zero: 20 ticks for one child's 20 000 calls, 10 for the other's 10 000;
# not the host's ticks, another number in every run); the process CPU
# clock stays monotonic while 600 threads come and go (dead threads leave
# the world's list every 256 steps: their steps must stay counted). One
# seed gives one hash.
. "$(dirname "$0")/lib.sh"
prog=$(build child_usage)
"$prog" >"$TMP/native.out" || { cat "$TMP/native.out"; fail "child_usage failed natively"; }
h=$(dsim_as_native --seeds "" "$prog") || exit 1
dsim_exec 1 "$prog" --positive >"$TMP/pos.out" || { cat "$TMP/pos.out"; fail "the child's time under dsim is zero"; }
grep -q '^SIGCHLD ticks 20$' "$TMP/pos.out" || fail "SIGCHLD's times: $(grep '^SIGCHLD' "$TMP/pos.out")"
grep -q '^signalfd SIGCHLD ticks 10$' "$TMP/pos.out" || fail "a signalfd's SIGCHLD times: $(grep '^signalfd' "$TMP/pos.out")"
note "children's CPU time and a monotonic CPU clock, as native; hash $h twice"
