#!/bin/bash
# sleeper.c under dsim: sleeps jump virtual time. sleep(100), a 100 s
# nanosleep and a 100 s poll advance CLOCK_MONOTONIC and CLOCK_REALTIME by 300
# whole seconds, in well under 5 s of real time; the default 30 s limit stops
# the same program with status 124, just as quickly.
. "$(dirname "$0")/lib.sh"

dsim_timeout
# The same, with --duration 400s after the subcommand (for same_hash_twice).
DSIM_400=$TMP/dsim-400s
printf '#!/bin/sh\nsub=$1; shift\nexec timeout -k 5 "${DSIM_TIMEOUT:-60}" "%s" "$sub" --duration 400s "$@"\n' \
    "$REAL_DSIM" >"$DSIM_400"
chmod +x "$DSIM_400"

prog=$(build sleeper) || exit 1
ms_now() { echo $(( $(date +%s%N) / 1000000 )); }

# Natively only scaled down (the real thing takes 300 s): 3 x 0.1 s.
t0=$(ms_now)
"$prog" 0.001 >"$TMP/native.out" || { cat "$TMP/native.out" >&2; fail "sleeper 0.001 failed natively"; }
t1=$(ms_now)
printf 'total sleep 0.300 s\nmonotonic elapsed 0 s\nrealtime elapsed 0 s\nok\n' | diff - "$TMP/native.out" >&2 ||
    fail "sleeper 0.001: unexpected native output"
[ $((t1 - t0)) -ge 300 ] || fail "sleeper 0.001 took only $((t1 - t0)) ms natively (it sleeps 300 ms)"
[ $((t1 - t0)) -lt 2000 ] || fail "sleeper 0.001 took $((t1 - t0)) ms natively"
"$prog" 2 >/dev/null 2>&1; [ $? = 2 ] || fail "sleeper 2: not a usage error"

printf 'total sleep 300.000 s\nmonotonic elapsed 300 s\nrealtime elapsed 300 s\nok\n' >"$TMP/expected.out"

# 300 virtual seconds in under 5 real ones, with a trace.
t0=$(ms_now)
"$DSIM" exec --seed 1 --duration 400s --trace "$TMP/trace" -- "$prog" >"$TMP/s1.out" 2>"$TMP/exec.err"; rc=$?
t1=$(ms_now)
[ "$rc" = 0 ] || { cat "$TMP/s1.out" "$TMP/exec.err" >&2; fail "seed 1: exit $rc"; }
diff "$TMP/expected.out" "$TMP/s1.out" >&2 || fail "seed 1: both clocks must advance by 300 s"
[ $((t1 - t0)) -lt 5000 ] || fail "300 s of sleeping took $((t1 - t0)) ms of real time (limit 5000)"
note "300 virtual seconds in $((t1 - t0)) ms"
tail -n 1 "$TMP/exec.err" | grep -Eqx 'dsim: trace hash [0-9a-f]{32}' ||
    { cat "$TMP/exec.err" >&2; fail "the last line on stderr is not the trace hash"; }
# The trace ("SECONDS.NANOS MACHINE TID TEXT" lines) shows the sleeps, and its
# last event is 300 (and not 301) virtual seconds in.
[ -s "$TMP/trace" ] || fail "--trace wrote nothing"
untrace "$TMP/trace"
grep -q 'nanosleep' "$TMP/trace" || fail "the trace has no nanosleep"
grep -q 'poll' "$TMP/trace" || fail "the trace has no poll"
last=$(tail -n 1 "$TMP/trace" | cut -d' ' -f1)
case $last in 300.*) ;; *) fail "the last trace event is at $last s, not 300.x s" ;; esac

# One seed twice: one hash, one output; another seed: the same output.
DSIM=$DSIM_400
h1=$(same_hash_twice 1 "$prog") || exit 1
diff "$TMP/expected.out" "$TMP/a.out" >&2 || fail "same_hash_twice: unexpected output"
note "seed 1 hash $h1"
dsim_exec 2 "$prog" >"$TMP/s2.out"; rc=$?
[ "$rc" = 0 ] || { cat "$TMP/exec.err" >&2; fail "seed 2: exit $rc"; }
diff "$TMP/expected.out" "$TMP/s2.out" >&2 || fail "seed 2: unexpected output"
DSIM=$TMP/dsim-timeout

# With the default 30 s limit: status 124 (the time limit), also fast -- so
# not the 60 s timeout wrapper's 124.
t0=$(ms_now)
"$DSIM" exec --seed 1 -- "$prog" >"$TMP/limit.out" 2>"$TMP/limit.err"; rc=$?
t1=$(ms_now)
[ "$rc" = 124 ] || { cat "$TMP/limit.err" >&2; fail "default duration: exit $rc, expected 124"; }
[ $((t1 - t0)) -lt 5000 ] || fail "hitting the 30 s limit took $((t1 - t0)) ms of real time"
! grep -qx ok "$TMP/limit.out" || fail "sleeper finished within a 30 s limit"
note "ok"
