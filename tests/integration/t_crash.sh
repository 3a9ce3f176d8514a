#!/bin/bash
# crash_segv.c under dsim: a thread that dereferences NULL after a few system
# calls kills its process with SIGSEGV, natively and under dsim, and dsim
# itself survives to report it. Natively the status is 139 (128+11); under
# `dsim exec` the exit status is 139 too, the output is native's, dsim's last
# stderr line is still "dsim: trace hash HEX" (dsim did not crash), the
# trace shows the signal and the machine dying of it, and one seed gives one
# hash. `dsim run` on `exec PROG` reports "killed by signal 11 (SIGSEGV)" and
# exits 1.
. "$(dirname "$0")/lib.sh"

dsim_timeout

# Built with -O0 (not lib.sh's -O1), so the NULL store is really made.
src="$PROGS/crash_segv.c" prog="$BIN/crash_segv"
if [ ! -x "$prog" ] || [ "$src" -nt "$prog" ]; then
    cc -std=gnu11 -O0 -g -Wall -pthread -o "$prog.tmp.$$" "$src" >&2 || fail "cannot build crash_segv"
    mv -f "$prog.tmp.$$" "$prog"
fi

EXPECTED_OUT='starting
thread about to crash'

# Natively: killed by SIGSEGV, status 139, after its two lines.
for _ in 1 2; do
    # (braces: bash's own "Segmentation fault" notice goes to /dev/null)
    { "$prog" >"$TMP/native.out" 2>"$TMP/native.err"; } 2>/dev/null; rc=$?
    [ "$rc" = 139 ] || { cat "$TMP/native.out" "$TMP/native.err" >&2; fail "native: status $rc, expected 139 (SIGSEGV)"; }
    printf '%s\n' "$EXPECTED_OUT" | diff - "$TMP/native.out" >&2 || fail "native: unexpected output"
done

# dsim exec: status 139; dsim's stderr is its trace hash line alone (the
# program ended the run itself, so dsim has nothing else to say).
for s in 1 2 3; do
    dsim_exec $s "$prog" >"$TMP/s$s.out"; rc=$?
    [ "$rc" = 139 ] || { cat "$TMP/s$s.out" "$TMP/exec.err" >&2; fail "seed $s: dsim exec exit $rc, expected 139"; }
    tail -n 1 "$TMP/exec.err" | grep -Eqx 'dsim: trace hash [0-9a-f]{32}' ||
        { cat "$TMP/exec.err" >&2; fail "seed $s: dsim's last stderr line is not the trace hash (did dsim crash?)"; }
    [ "$(wc -l <"$TMP/exec.err")" = 1 ] ||
        { cat "$TMP/exec.err" >&2; fail "seed $s: dsim wrote more than its trace hash to stderr"; }
    diff "$TMP/native.out" "$TMP/s$s.out" >&2 || fail "seed $s: output differs from native"
done

# The trace: the crashing thread gets SIGSEGV after its write, the machine
# exits by signal 11, the outcome is "exit".
"$DSIM" exec --seed 1 --trace "$TMP/s1.trace" -- "$prog" >/dev/null 2>"$TMP/trace.err"; rc=$?
[ "$rc" = 139 ] || { cat "$TMP/trace.err" >&2; fail "dsim exec --trace: exit $rc, expected 139"; }
untrace "$TMP/s1.trace"
grep -Eq '^[0-9.]+ main [0-9]+ signal SEGV$' "$TMP/s1.trace" ||
    { tail -n 20 "$TMP/s1.trace" >&2; fail "the trace has no 'signal SEGV' event"; }
grep -Eq '^[0-9.]+ main [0-9]+ machine exit signal 11$' "$TMP/s1.trace" ||
    { tail -n 20 "$TMP/s1.trace" >&2; fail "the trace has no 'machine exit signal 11'"; }
tail -n 1 "$TMP/s1.trace" | grep -Eqx '[0-9]+\.[0-9]{9} - 0 end exit' ||
    { tail -n 5 "$TMP/s1.trace" >&2; fail "the trace does not end in 'end exit'"; }
segv_tid=$(sed -n 's/^[0-9.]* main \([0-9]*\) signal SEGV$/\1/p' "$TMP/s1.trace" | head -n 1)
[ "$segv_tid" != 2 ] || fail "SIGSEGV went to the main thread (2), not the crashing thread"
grep -Eq "^[0-9.]+ main $segv_tid getppid\(\)" "$TMP/s1.trace" ||
    fail "thread $segv_tid got SIGSEGV but did not make the thread's getppid() first"

# Deterministic: one seed, one hash.
h=$(same_hash_twice 1 "$prog") || exit 1
note "seed 1 hash $h"

# dsim run, the program exec'd as the machine's pid 2: killed by signal 11.
write_conf "$TMP/crash.conf" <<CONF
[machine main]
command = exec '$prog'
CONF
"$DSIM" run "$TMP/crash.conf" --seeds 1-3 >"$TMP/run.out" 2>"$TMP/run.err"; rc=$?
[ "$rc" = 1 ] || { cat "$TMP/run.out" "$TMP/run.err" >&2; fail "dsim run: exit $rc, expected 1"; }
grep -qx 'seed 1 FAILED: machine main was killed by signal 11 (SIGSEGV)' "$TMP/run.out" ||
    { cat "$TMP/run.out" >&2; fail "dsim run: no 'seed 1 FAILED: machine main was killed by signal 11 (SIGSEGV)'"; }
# The report shows where the thread crashed, read before the signal killed it.
grep -q "machine main thread [0-9]* took SIGSEGV here:" "$TMP/run.out" ||
    { cat "$TMP/run.out" >&2; fail "the report has no crash stack"; }
grep -Eq "#[0-9]+ 0x[0-9a-f]+ worker\+" "$TMP/run.out" ||
    { cat "$TMP/run.out" >&2; fail "the crash stack does not show the worker function"; }
# And the crashing process's other threads: main, waiting in pthread_join.
grep -Eq "^  thread 2 was (blocked in|about to call) futex\(" "$TMP/run.out" &&
    grep -Eq "#[0-9]+ 0x[0-9a-f]+ main\+" "$TMP/run.out" ||
    { cat "$TMP/run.out" >&2; fail "the report does not show the main thread's join"; }
grep -qx 'failed at seed 1 (0 seeds passed first)' "$TMP/run.out" ||
    { cat "$TMP/run.out" >&2; fail "dsim run: did not stop at seed 1"; }
H=$(sed -n 's/^  simulated time .*, trace hash \([0-9a-f]*\)$/\1/p' "$TMP/run.out")
[ -n "$H" ] || { cat "$TMP/run.out" >&2; fail "dsim run: the report has no trace hash"; }
"$DSIM" replay "$TMP/crash.conf" 1 >"$TMP/replay.out" 2>&1; rc=$?
[ "$rc" = 1 ] && tail -n 1 "$TMP/replay.out" | grep -qx "trace hash $H" ||
    { cat "$TMP/replay.out" >&2; fail "dsim replay 1: exit $rc, or not trace hash $H"; }

# Through the shell (no exec), /bin/sh reaps the crash itself and turns it
# into status 139, as it does natively; either way the seed fails with it.
write_conf "$TMP/crash-sh.conf" <<CONF
[machine main]
command = '$prog'
CONF
"$DSIM" run "$TMP/crash-sh.conf" --seeds 1 >"$TMP/run-sh.out" 2>&1; rc=$?
[ "$rc" = 1 ] || { cat "$TMP/run-sh.out" >&2; fail "dsim run (via sh): exit $rc, expected 1"; }
grep -Eqx 'seed 1 FAILED: machine main (exited with status 139|was killed by signal 11 \(SIGSEGV\))' "$TMP/run-sh.out" ||
    { cat "$TMP/run-sh.out" >&2; fail "dsim run (via sh): the report does not show the crash"; }
note "ok"
