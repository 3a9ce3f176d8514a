#!/bin/bash
# condvar.c under dsim: a producer/consumer over pthread_cond_wait/signal
# gives the native totals on every seed, and pthread_cond_timedwait /
# pthread_cond_clockwait with 2 s timeouts (CLOCK_REALTIME, a CLOCK_MONOTONIC
# condattr) time out after 2 virtual seconds, while a signalled timedwait
# returns 0 before its deadline. One seed gives one hash; the schedule (hash)
# follows the seed.
. "$(dirname "$0")/lib.sh"
dsim_timeout

prog=$(build condvar) || exit 1

# Natively with the timeouts scaled down to 0.1 s (the output does not
# depend on the scale): deterministic, and it ends in "ok".
native_ok --runs 2 "$prog" 0.05
grep -qx 'queue: produced 1000 consumed 1000 sum 500500' "$TMP/native.out" || fail "native: wrong totals"
[ "$(grep -c ': ETIMEDOUT$' "$TMP/native.out")" = 3 ] || fail "native: expected 3 timeouts"

# Under dsim with the full 2 s timeouts (virtual time): the native output.
h1=$(dsim_as_native --varies "$prog") || exit 1
note "seed 1 hash $h1"
note "ok"
