#!/bin/bash
# clock_reads = page: a thread that reads the clock without a system call
# does not keep the others from running (clock_deadline). A thread sleeps
# 1 ms while the main thread busy-waits on the clock for it: the reads are
# stops while the sleeper could run (its first step, then its wake-up) and
# the read that reaches its deadline is one, so it wakes within a few
# quanta, as with stop, in every seed (with 64 reads a turn it woke 0.3 to
# 4 ms late). One seed, one hash.
. "$(dirname "$0")/lib.sh"
dsim_timeout
prog=$(build clock_deadline)
"$prog" | grep -qx ok || fail "clock_deadline failed natively"
same_hash_twice 1 "$prog" >/dev/null || exit 1
for mode in page stop; do
    lates=""
    for seed in 1 2 3 4 5 6 7 8; do
        EXEC_OPTS="--clock-reads $mode" dsim_exec "$seed" "$prog" >"$TMP/out" || fail "$mode seed $seed failed"
        late=$(sed -n 's/^late \(-*[0-9]*\) us$/\1/p' "$TMP/out")
        [ -n "$late" ] && grep -qx ok "$TMP/out" || fail "$mode seed $seed: $(cat "$TMP/out")"
        [ "$late" -le 200 ] || fail "$mode seed $seed: the sleeper woke $late us late"
        lates="$lates $late"
    done
    note "$mode: the sleeper woke late by (us):$lates"
done
