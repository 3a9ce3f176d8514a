#!/bin/bash
# join_many.c under dsim: 50 threads, each doing a few syscalls and meeting
# at a barrier, return i*i; main joins them all and gets the native sum
# (40425), distinct thread ids and one process id on every seed. One seed
# gives one hash; the schedule (hash) follows the seed.
. "$(dirname "$0")/lib.sh"

# Every dsim invocation goes through `timeout` (60 s, or $DSIM_TIMEOUT).
REAL_DSIM=$DSIM
DSIM=$TMP/dsim-timeout
printf '#!/bin/sh\nexec timeout -k 5 "${DSIM_TIMEOUT:-60}" "%s" "$@"\n' "$REAL_DSIM" >"$DSIM"
chmod +x "$DSIM"

prog=$(build join_many) || exit 1

"$prog" >"$TMP/native.out" || { cat "$TMP/native.out" >&2; fail "join_many failed natively"; }
grep -qx 'joined 50 threads, sum of return values 40425' "$TMP/native.out" || fail "native: wrong sum"
[ "$(tail -n 1 "$TMP/native.out")" = ok ] || fail "native run did not end in ok"
for i in 1 2 3; do
    "$prog" >"$TMP/native2.out" || fail "join_many failed natively"
    diff "$TMP/native.out" "$TMP/native2.out" >&2 || fail "native output is not deterministic"
done

[ -x "$REAL_DSIM" ] || fail "no dsim binary at $REAL_DSIM"

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
