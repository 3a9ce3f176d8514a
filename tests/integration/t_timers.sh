#!/bin/bash
# timers.c under dsim: timerfd (one-shot, periodic read with blocking read()
# and with poll(), TFD_NONBLOCK, TFD_TIMER_ABSTIME, timerfd_gettime), alarm()
# with a SIGALRM handler interrupting pause(), and setitimer(ITIMER_REAL)
# behave as natively, in virtual time. Same output as native on two seeds; one
# seed gives one hash.
. "$(dirname "$0")/lib.sh"
dsim_timeout

prog=$(build timers) || exit 1

# Natively (about 1.6 s: alarm(1) is a real second): twice, same output.
native_ok "$prog"
! grep -q FAIL "$TMP/native.out" || fail "native run has FAIL lines"
grep -qx 'alarm(1): pause returned -1 EINTR, handler ran 1 time' "$TMP/native.out" || fail "native: alarm line"
h1=$(dsim_as_native --seeds 2 "$prog") || exit 1
note "seed 1 hash $h1"
note "ok"
