#!/bin/bash
# POSIX timers on virtual time: output equals native, one hash per seed;
# and timeout(1), which uses timer_create, kills a long sleep.
. "$(dirname "$0")/lib.sh"
prog=$(build posix_timers)
"$prog" >"$TMP/native.out" || fail "native run failed"
dsim_as_native --seeds "" "$prog" >/dev/null || exit 1
start=$(date +%s)
timeout -k 5 60 "$DSIM" exec --duration 500s -- timeout 100 sleep 1000 2>"$TMP/t.err"
rc=$?
[ $rc = 124 ] || fail "timeout 100 sleep 1000: status $rc, want 124"
! grep -q "time limit" "$TMP/t.err" || fail "dsim's own time limit ended the run, not timeout(1)"
[ $(( $(date +%s) - start )) -lt 10 ] || fail "timeout took real time"
timeout -k 5 60 "$DSIM" exec -- timeout 100 sleep 1 2>/dev/null || fail "timeout 100 sleep 1 failed"
