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
dsim_exec 1 "$prog" >"$TMP/dsim.out" || { cat "$TMP/exec.err" "$TMP/dsim.out"; fail "child_usage failed under dsim"; }
diff "$TMP/native.out" "$TMP/dsim.out" >&2 || fail "child_usage under dsim differs from native"
dsim_exec 1 "$prog" --positive >"$TMP/pos.out" || { cat "$TMP/pos.out"; fail "the child's time under dsim is zero"; }
h=$(same_hash_twice 1 "$prog") || exit 1
note "children's CPU time and a monotonic CPU clock, as native; hash $h twice"
