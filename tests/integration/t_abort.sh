#!/bin/bash
# abort_child.c under dsim: a forked child that calls abort() dies by
# SIGABRT, and its parent's waitpid sees it (WIFSIGNALED, WTERMSIG 6), as
# natively: same output as native on several seeds, exit 0, the trace shows
# the child getting SIGABRT and the parent SIGCHLD, one seed gives one hash,
# and `dsim run` passes (a child's death by signal is not the machine's).
. "$(dirname "$0")/lib.sh"

dsim_timeout

prog=$(build abort_child) || exit 1

cat >"$TMP/expected.out" <<'OUT'
parent forking
child aborting
child exited: WIFEXITED=0 WIFSIGNALED=1 WTERMSIG=6
parent done
OUT

for _ in 1 2 3; do
    "$prog" >"$TMP/native.out" 2>"$TMP/native.err" ||
        { cat "$TMP/native.out" "$TMP/native.err" >&2; fail "abort_child failed natively"; }
    diff "$TMP/expected.out" "$TMP/native.out" >&2 || fail "abort_child: unexpected native output"
done

for s in 1 2 3 4; do
    dsim_exec $s "$prog" >"$TMP/s$s.out"; rc=$?
    [ "$rc" = 0 ] || { cat "$TMP/s$s.out" "$TMP/exec.err" >&2; fail "seed $s: dsim exec exit $rc"; }
    diff "$TMP/native.out" "$TMP/s$s.out" >&2 || fail "seed $s: output differs from native"
    tail -n 1 "$TMP/exec.err" | grep -Eqx 'dsim: trace hash [0-9a-f]{32}' ||
        { cat "$TMP/exec.err" >&2; fail "seed $s: dsim's last stderr line is not the trace hash"; }
done

# The trace: the child (not the parent, 2) gets SIGABRT, then the parent
# gets SIGCHLD and exits 0; the outcome is pass.
"$DSIM" exec --seed 1 --trace "$TMP/s1.trace" -- "$prog" >/dev/null 2>"$TMP/trace.err"; rc=$?
[ "$rc" = 0 ] || { cat "$TMP/trace.err" >&2; fail "dsim exec --trace: exit $rc"; }
untrace "$TMP/s1.trace"
child=$(sed -n 's/^[0-9.]* main \([0-9]*\) signal ABRT$/\1/p' "$TMP/s1.trace" | head -n 1)
[ -n "$child" ] || { tail -n 20 "$TMP/s1.trace" >&2; fail "the trace has no 'signal ABRT' event"; }
[ "$child" != 2 ] || fail "SIGABRT went to the parent (2), not the child"
grep -Eq '^[0-9.]+ main 2 signal CHLD$' "$TMP/s1.trace" ||
    { tail -n 20 "$TMP/s1.trace" >&2; fail "the parent got no SIGCHLD"; }
grep -Eq '^[0-9.]+ main 2 machine exit status 0$' "$TMP/s1.trace" ||
    { tail -n 20 "$TMP/s1.trace" >&2; fail "the trace has no 'machine exit status 0'"; }
tail -n 1 "$TMP/s1.trace" | grep -Eqx '[0-9]+\.[0-9]{9} - 0 end pass' ||
    { tail -n 5 "$TMP/s1.trace" >&2; fail "the trace does not end in 'end pass'"; }

h=$(dsim_as_native --seeds "" "$prog") || exit 1
note "seed 1 hash $h"

# dsim run: every seed passes.
write_conf "$TMP/abort.conf" <<CONF
[machine main]
command = '$prog'
CONF
"$DSIM" run "$TMP/abort.conf" --seeds 1-5 >"$TMP/run.out" 2>&1; rc=$?
[ "$rc" = 0 ] || { cat "$TMP/run.out" >&2; fail "dsim run --seeds 1-5: exit $rc, expected 0"; }
grep -qx 'dsim: all 5 seeds passed' "$TMP/run.out" ||
    { cat "$TMP/run.out" >&2; fail "dsim run: no 'dsim: all 5 seeds passed'"; }
note "ok"
