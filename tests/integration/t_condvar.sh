#!/bin/bash
# condvar.c under dsim: a producer/consumer over pthread_cond_wait/signal
# gives the native totals on every seed, and pthread_cond_timedwait /
# pthread_cond_clockwait with 2 s timeouts (CLOCK_REALTIME, a CLOCK_MONOTONIC
# condattr) time out after 2 virtual seconds, while a signalled timedwait
# returns 0 before its deadline. One seed gives one hash; the schedule (hash)
# follows the seed.
. "$(dirname "$0")/lib.sh"

# Every dsim invocation goes through `timeout` (60 s, or $DSIM_TIMEOUT).
REAL_DSIM=$DSIM
DSIM=$TMP/dsim-timeout
printf '#!/bin/sh\nexec timeout -k 5 "${DSIM_TIMEOUT:-60}" "%s" "$@"\n' "$REAL_DSIM" >"$DSIM"
chmod +x "$DSIM"

prog=$(build condvar) || exit 1

# Natively with the timeouts scaled down to 0.1 s (the output does not
# depend on the scale): deterministic, and it ends in "ok".
"$prog" 0.05 >"$TMP/native.out" || { cat "$TMP/native.out" >&2; fail "condvar failed natively"; }
[ "$(tail -n 1 "$TMP/native.out")" = ok ] || fail "native run did not end in ok"
grep -qx 'queue: produced 1000 consumed 1000 sum 500500' "$TMP/native.out" || fail "native: wrong totals"
[ "$(grep -c ': ETIMEDOUT$' "$TMP/native.out")" = 3 ] || fail "native: expected 3 timeouts"
for i in 1 2; do
    "$prog" 0.05 >"$TMP/native2.out" || fail "condvar failed natively"
    diff "$TMP/native.out" "$TMP/native2.out" >&2 || fail "native output is not deterministic"
done

[ -x "$REAL_DSIM" ] || fail "no dsim binary at $REAL_DSIM"

# Under dsim with the full 2 s timeouts (virtual time): the native output.
h1=$(same_hash_twice 1 "$prog") || exit 1
note "seed 1 hash $h1"
diff "$TMP/native.out" "$TMP/a.out" >&2 || fail "seed 1: output differs from native"

hashes=$h1
for s in 2 3 4; do
    dsim_exec $s "$prog" >"$TMP/s$s.out"; rc=$?
    [ "$rc" = 0 ] || { cat "$TMP/s$s.out" "$TMP/exec.err" >&2; fail "seed $s: exit $rc"; }
    diff "$TMP/native.out" "$TMP/s$s.out" >&2 || fail "seed $s: output differs from native"
    h=$(exec_hash)
    [ -n "$h" ] || fail "seed $s: no trace hash"
    hashes="$hashes $h"
done
[ "$(echo $hashes | tr ' ' '\n' | sort -u | wc -l)" -ge 2 ] ||
    fail "seeds 1-4 all have the trace hash $h1: the schedule does not follow the seed"
note "ok"
