#!/bin/bash
# The itimers' signals (alarm and ITIMER_REAL's SIGALRM, ITIMER_VIRTUAL's
# SIGVTALRM, ITIMER_PROF's SIGPROF) carry the kernel's siginfo, SI_KERNEL
# from pid 0, as natively, though dsim sends them with kill (SI_USER), to a
# handler, to sigwaitinfo and read from a signalfd; a program's own kill still says SI_USER and
# its pid. Output as native, one hash per seed.
. "$(dirname "$0")/lib.sh"
prog=$(build timer_siginfo)
"$prog" >"$TMP/native.out" || fail "timer_siginfo failed natively"
grep -q '^signalfd: SI_KERNEL pid 0' "$TMP/native.out" || fail "natively: $(cat "$TMP/native.out")"
h=$(dsim_as_native --seeds 2 "$prog") || exit 1
note "itimer signals say SI_KERNEL as natively; hash $h twice"
