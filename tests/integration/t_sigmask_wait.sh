#!/bin/bash
# pselect, ppoll and epoll_pwait with a signal mask: a signal blocked outside
# the wait but let in by its mask interrupts it (EINTR, handler run), as on
# Linux, instead of leaving the thread blocked forever.
. "$(dirname "$0")/lib.sh"
dsim_timeout
prog=$(build sigmask_wait)
"$prog" >"$TMP/native.out" || fail "native run failed"
dsim_as_native --seeds "2 3" "$prog" >/dev/null || exit 1
