#!/bin/bash
# Futexes in memory shared between processes (POSIX semaphores in shm or in
# MAP_SHARED memory, as CPython's multiprocessing uses) wake across
# processes: output equals native, one hash per seed, and the schedule varies.
. "$(dirname "$0")/lib.sh"
dsim_timeout
prog=$(build shared_sem)
for mode in named anon; do
    "$prog" $mode >"$TMP/native.out" || fail "native $mode failed"
    dsim_as_native --varies "$prog" $mode >/dev/null || exit 1
done
# CPython's multiprocessing.Pool: worker processes and semaphores in shm.
out=$("$DSIM" exec --seed 1 -- /usr/bin/python3 -c \
    'import multiprocessing as m; p = m.Pool(2); print(sum(p.map(abs, range(-50, 50))))' 2>"$TMP/exec.err") ||
    { cat "$TMP/exec.err"; fail "multiprocessing.Pool failed"; }
[ "$out" = 2500 ] || fail "multiprocessing.Pool printed $out"
