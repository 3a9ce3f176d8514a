#!/bin/bash
# fence_syscall.c under dsim: a system call dsim cannot make deterministic
# (unshare: nested namespaces, not in syscalls/table.c) stops the run instead of letting
# nondeterminism in. Natively the call succeeds. `dsim exec` exits 125 and
# its report names the call, the machine (main), the thread and a stack with
# call_unsupported() above main(); the output written before the call is
# kept, nothing after it runs; the fence is deterministic (one seed, one
# hash; every seed fences); `dsim run` reports "seed 1 FAILED" with
# "unsupported syscall unshare" and exits 1; `dsim verify` names the
# outcome "fence".
. "$(dirname "$0")/lib.sh"

dsim_timeout

prog=$(build fence_syscall) || exit 1

# Natively unshare works.
"$prog" >"$TMP/native.out" 2>"$TMP/native.err" ||
    { cat "$TMP/native.out" "$TMP/native.err" >&2; fail "fence_syscall failed natively"; }
printf 'before fence\nnamespace made\n' | diff - "$TMP/native.out" >&2 ||
    fail "fence_syscall: unexpected native output"

# check_fence_report FILE: FILE holds a fence report for unshare in
# machine main, with a thread id and a stack in which call_unsupported is a
# frame, inside main.
check_fence_report() {
    local f=$1 cu m
    grep -q 'unsupported syscall unshare' "$f" ||
        { cat "$f" >&2; fail "$f: the report does not say 'unsupported syscall unshare'"; }
    grep -Eq 'unsupported syscall unshare.* in machine main, thread [0-9]+$' "$f" ||
        { cat "$f" >&2; fail "$f: the report does not name machine main and a thread"; }
    # Stack lines: "#I 0xADDRESS FUNCTION+0xOFFSET (OBJECT)".
    cu=$(sed -n 's/^ *#\([0-9][0-9]*\) 0x[0-9a-f]* call_unsupported+0x[0-9a-f]* (fence_syscall)$/\1/p' "$f" | head -n 1)
    m=$(sed -n 's/^ *#\([0-9][0-9]*\) 0x[0-9a-f]* main+0x[0-9a-f]* (fence_syscall)$/\1/p' "$f" | head -n 1)
    [ -n "$cu" ] || { cat "$f" >&2; fail "$f: no stack frame for call_unsupported"; }
    [ -n "$m" ] || { cat "$f" >&2; fail "$f: no stack frame for main"; }
    [ "$cu" -lt "$m" ] || { cat "$f" >&2; fail "$f: call_unsupported (#$cu) is not inside main (#$m)"; }
}

# dsim exec: exit 125, the report on stderr, the trace ends in a fence.
dsim_exec 1 "$prog" >"$TMP/s1.out"; rc=$?
cp "$TMP/exec.err" "$TMP/s1.err"
[ "$rc" = 125 ] || { cat "$TMP/s1.out" "$TMP/s1.err" >&2; fail "dsim exec: exit $rc, expected 125 (fence)"; }
check_fence_report "$TMP/s1.err"
grep -q '^dsim: seed 1: unsupported syscall unshare' "$TMP/s1.err" ||
    { cat "$TMP/s1.err" >&2; fail "dsim exec: no 'dsim: seed 1: unsupported syscall unshare' line"; }
tail -n 1 "$TMP/s1.err" | grep -Eqx 'dsim: trace hash [0-9a-f]{32}' ||
    { cat "$TMP/s1.err" >&2; fail "dsim exec: the last stderr line is not the trace hash"; }
# What the program wrote before the call is there; nothing after it ran.
printf 'before fence\n' | diff - "$TMP/s1.out" >&2 ||
    fail "dsim exec: stdout should be just 'before fence' (the fenced call must not run)"
"$DSIM" exec --seed 1 --trace "$TMP/s1.trace" -- "$prog" >/dev/null 2>&1; rc=$?
untrace "$TMP/s1.trace"
[ "$rc" = 125 ] || fail "dsim exec --trace: exit $rc, expected 125"
tail -n 1 "$TMP/s1.trace" | grep -Eqx '[0-9]+\.[0-9]{9} - 0 end fence' ||
    { tail -n 5 "$TMP/s1.trace" >&2; fail "the trace does not end in 'end fence'"; }
# The stopped call is the last event before it, marked as fenced (not run):
# two runs stopped at different calls have different hashes.
tail -n 2 "$TMP/s1.trace" | head -n 1 | grep -Eq ' unshare\(.*\) fence$' ||
    { tail -n 3 "$TMP/s1.trace" >&2; fail "the trace does not show unshare as the fenced call"; }
[ "$(grep -c ' unshare(' "$TMP/s1.trace")" = 1 ] || fail "unshare appears more than once in the trace"

# Deterministic: one seed, one hash; and every seed fences (the call does not
# depend on the schedule).
h=$(same_hash_twice 1 "$prog") || exit 1
note "seed 1 hash $h"
for s in 2 3; do
    dsim_exec $s "$prog" >/dev/null; rc=$?
    [ "$rc" = 125 ] || { cat "$TMP/exec.err" >&2; fail "seed $s: exit $rc, expected 125"; }
    check_fence_report "$TMP/exec.err"
done

# dsim run: the seed fails with the fence as its reason, and the run stops.
write_conf "$TMP/fence.conf" <<CONF
[machine main]
command = '$prog'
CONF
"$DSIM" run "$TMP/fence.conf" --seeds 1-5 >"$TMP/run.out" 2>"$TMP/run.err"; rc=$?
[ "$rc" = 1 ] || { cat "$TMP/run.out" "$TMP/run.err" >&2; fail "dsim run: exit $rc, expected 1"; }
grep -q '^seed 1 FAILED: unsupported syscall unshare' "$TMP/run.out" ||
    { cat "$TMP/run.out" >&2; fail "dsim run: no 'seed 1 FAILED: unsupported syscall unshare'"; }
check_fence_report "$TMP/run.out"
grep -Eq '^  simulated time [0-9]+\.[0-9]{9}s, [0-9]+ steps, trace hash [0-9a-f]{32}$' "$TMP/run.out" ||
    { cat "$TMP/run.out" >&2; fail "dsim run: no simulated time / trace hash line"; }
grep -qx 'failed at seed 1 (0 seeds passed first)' "$TMP/run.out" ||
    { cat "$TMP/run.out" >&2; fail "dsim run: did not stop at seed 1"; }
! grep -q '^seed [2-5] ' "$TMP/run.out" || fail "dsim run: went on after the failing seed"

# dsim verify: one hash over the runs, outcome "fence".
"$DSIM" verify "$TMP/fence.conf" --seed 1 --runs 3 >"$TMP/verify.out" 2>&1; rc=$?
[ "$rc" = 0 ] || { cat "$TMP/verify.out" >&2; fail "dsim verify --seed 1: exit $rc"; }
[ "$(grep -Ec '^run [1-3]: [0-9a-f]{32} fence$' "$TMP/verify.out")" = 3 ] ||
    { cat "$TMP/verify.out" >&2; fail "dsim verify: expected 3 'run I: HASH fence' lines"; }
note "ok"
