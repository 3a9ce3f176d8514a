#!/bin/bash
# pipe_threads.c under dsim: two threads ping-pong 1000 messages over two
# pipes with blocking reads and writes, and one write() of 1 MiB -- far more
# than a pipe holds -- blocks until another thread, reading 1000 bytes at a
# time, has drained it; it returns the full count and every byte arrives.
# Same output as native on every seed; one seed gives one hash; the schedule
# (hash) follows the seed.
. "$(dirname "$0")/lib.sh"

# Every dsim invocation goes through `timeout` (60 s, or $DSIM_TIMEOUT).
REAL_DSIM=$DSIM
DSIM=$TMP/dsim-timeout
printf '#!/bin/sh\nexec timeout -k 5 "${DSIM_TIMEOUT:-60}" "%s" "$@"\n' "$REAL_DSIM" >"$DSIM"
chmod +x "$DSIM"

prog=$(build pipe_threads) || exit 1

"$prog" >"$TMP/native.out" || { cat "$TMP/native.out" >&2; fail "pipe_threads failed natively"; }
grep -qx 'ping-pong: 1000 round trips, sum of replies 1000000' "$TMP/native.out" || fail "native: ping-pong totals"
grep -qx 'bulk: one write() of 1048576 bytes returned 1048576' "$TMP/native.out" || fail "native: bulk write"
grep -qx 'bulk: read 1048576 bytes in chunks of at most 1000' "$TMP/native.out" || fail "native: bulk read"
[ "$(tail -n 1 "$TMP/native.out")" = ok ] || fail "native run did not end in ok"
for i in 1 2 3; do
    "$prog" >"$TMP/native2.out" || fail "pipe_threads failed natively"
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
