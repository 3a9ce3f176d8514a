#!/bin/bash
# timers.c under dsim: timerfd (one-shot, periodic read with blocking read()
# and with poll(), TFD_NONBLOCK, TFD_TIMER_ABSTIME, timerfd_gettime), alarm()
# with a SIGALRM handler interrupting pause(), and setitimer(ITIMER_REAL)
# behave as natively, in virtual time. Same output as native on two seeds; one
# seed gives one hash.
. "$(dirname "$0")/lib.sh"

# Every dsim invocation goes through `timeout` (60 s, or $DSIM_TIMEOUT).
REAL_DSIM=$DSIM
DSIM=$TMP/dsim-timeout
printf '#!/bin/sh\nexec timeout -k 5 "${DSIM_TIMEOUT:-60}" "%s" "$@"\n' "$REAL_DSIM" >"$DSIM"
chmod +x "$DSIM"

prog=$(build timers) || exit 1

# Natively (about 1.6 s: alarm(1) is a real second): twice, same output.
"$prog" >"$TMP/native.out" || { cat "$TMP/native.out" >&2; fail "timers failed natively"; }
[ "$(tail -n 1 "$TMP/native.out")" = ok ] || fail "native run did not end in ok"
! grep -q FAIL "$TMP/native.out" || fail "native run has FAIL lines"
grep -qx 'alarm(1): pause returned -1 EINTR, handler ran 1 time' "$TMP/native.out" || fail "native: alarm line"
"$prog" >"$TMP/native2.out" || fail "timers failed natively"
diff "$TMP/native.out" "$TMP/native2.out" >&2 || fail "native output is not deterministic"

[ -x "$REAL_DSIM" ] || fail "no dsim binary at $REAL_DSIM"

h1=$(same_hash_twice 1 "$prog") || exit 1
note "seed 1 hash $h1"
diff "$TMP/native.out" "$TMP/a.out" >&2 || fail "seed 1: output differs from native"

dsim_exec 2 "$prog" >"$TMP/s2.out"; rc=$?
[ "$rc" = 0 ] || { cat "$TMP/s2.out" "$TMP/exec.err" >&2; fail "seed 2: exit $rc"; }
diff "$TMP/native.out" "$TMP/s2.out" >&2 || fail "seed 2: output differs from native"
[ -n "$(exec_hash)" ] || fail "seed 2: no trace hash"
note "ok"
