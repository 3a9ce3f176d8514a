#!/bin/bash
# pselect, ppoll and epoll_pwait with a signal mask: a signal blocked outside
# the wait but let in by its mask interrupts it (EINTR, handler run), as on
# Linux, instead of leaving the thread blocked forever.
. "$(dirname "$0")/lib.sh"
prog=$(build sigmask_wait)
want=$("$prog") || fail "native run failed"
same_hash_twice 1 "$prog" >/dev/null || exit 1
diff <(echo "$want") "$TMP/a.out" >&2 || fail "output differs from native"
for seed in 2 3; do
    out=$(timeout -k 5 60 "$DSIM" exec --seed $seed -- "$prog" 2>/dev/null) || fail "seed $seed failed"
    [ "$out" = "$want" ] || fail "seed $seed: $out"
done
