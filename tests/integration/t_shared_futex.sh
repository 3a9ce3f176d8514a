#!/bin/bash
# Futexes in memory shared between processes (POSIX semaphores in shm or in
# MAP_SHARED memory, as CPython's multiprocessing uses) wake across
# processes: output equals native, one hash per seed, and the schedule varies.
. "$(dirname "$0")/lib.sh"
prog=$(build shared_sem)
for mode in named anon; do
    want=$("$prog" $mode) || fail "native $mode failed"
    h=$(same_hash_twice 1 "$prog" $mode) || exit 1
    [ "$(cat "$TMP/a.out")" = "$want" ] || fail "$mode: output differs from native: $(cat "$TMP/a.out")"
    hashes="$h"
    for seed in 2 3 4; do
        timeout -k 5 60 "$DSIM" exec --seed $seed -- "$prog" $mode >"$TMP/s.out" 2>"$TMP/exec.err" ||
            { cat "$TMP/exec.err"; fail "$mode seed $seed failed"; }
        [ "$(cat "$TMP/s.out")" = "$want" ] || fail "$mode seed $seed: wrong output"
        hashes="$hashes $(exec_hash)"
    done
    [ "$(tr ' ' '\n' <<<"$hashes" | sort -u | wc -l)" -gt 1 ] || fail "$mode: every seed gave one schedule"
done
# CPython's multiprocessing.Pool: worker processes and semaphores in shm.
out=$(timeout -k 5 60 "$DSIM" exec --seed 1 -- /usr/bin/python3 -c \
    'import multiprocessing as m; p = m.Pool(2); print(sum(p.map(abs, range(-50, 50))))' 2>"$TMP/exec.err") ||
    { cat "$TMP/exec.err"; fail "multiprocessing.Pool failed"; }
[ "$out" = 2500 ] || fail "multiprocessing.Pool printed $out"
