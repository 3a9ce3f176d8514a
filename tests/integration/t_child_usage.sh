#!/bin/bash
# CPU time across processes and threads (child_usage): wait4's rusage,
# getrusage(RUSAGE_CHILDREN) and times() agree on a waited-for child's time,
# as natively, and under dsim it is the child's steps (not zero); the
# process CPU clock stays monotonic while 600 threads come and go (dead
# threads leave the world's list every 256 steps: their steps must stay
# counted). One seed gives one hash.
. "$(dirname "$0")/lib.sh"
prog=$(build child_usage)
"$prog" >"$TMP/native.out" || { cat "$TMP/native.out"; fail "child_usage failed natively"; }
h=$(dsim_as_native --seeds "" "$prog") || exit 1
dsim_exec 1 "$prog" --positive >"$TMP/pos.out" || { cat "$TMP/pos.out"; fail "the child's time under dsim is zero"; }
note "children's CPU time and a monotonic CPU clock, as native; hash $h twice"
