#!/bin/bash
# futex and timers at their edges answer as Linux does (futex_errors,
# timer_errors): the errno and its precedence for bad addresses,
# protections, flags, commands and fds; a shared futex key on an unmapped,
# PROT_NONE or read-only anonymous page is EFAULT and a private one is not;
# wake-op's operation stands when its comparison is unknown; timerfd's
# old value is written after the timer is armed; clock_nanosleep's
# EOPNOTSUPP clocks, CPU-clock sleeps that end when another thread has
# worked, and EFAULT for an interrupted sleep's bad remaining-time address;
# ITIMER_PROF, ITIMER_VIRTUAL and POSIX timers on CPU-time clocks fire once
# the process has worked that long (cpu_timers); futex_waitv returns the
# index of the futex it was woken through, with Linux's errors.
# Each runs natively and under dsim with the same output; one seed gives one
# hash.
. "$(dirname "$0")/lib.sh"
for p in futex_errors futex_waitv timer_errors cpu_timers; do
    prog=$(build $p)
    timeout 30 "$prog" >"$TMP/native.out" || { cat "$TMP/native.out"; fail "$p failed natively"; }
    [ "$(wc -l <"$TMP/native.out")" -ge 12 ] || fail "$p printed too little"
    h=$(dsim_as_native --seeds "" "$prog") || exit 1
    note "$p as natively; hash $h twice"
done
