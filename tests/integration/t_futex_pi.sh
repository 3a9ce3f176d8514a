#!/bin/bash
# PI futexes (were fences): three threads contend for a PTHREAD_PRIO_INHERIT
# mutex (FUTEX_LOCK_PI waits, FUTEX_UNLOCK_PI hands the lock to a waiter
# and the word names it), trylock and timedlock on a held one, and the raw
# calls' results and errors (EDEADLK, EPERM, ESRCH, OWNER_DIED kept,
# LOCK_PI2): native = dsim on seeds 1 and 2, the lock handed over under
# dsim, one seed one hash, two seeds two schedules.
. "$(dirname "$0")/lib.sh"
prog=$(build futex_pi)
timeout 30 "$prog" >"$TMP/native.out" || { cat "$TMP/native.out"; fail "futex_pi failed natively"; }
h1=$(dsim_as_native --seeds 2 "$prog") || exit 1
"$DSIM" exec --seed 1 --trace "$TMP/t.gz" -- "$prog" >/dev/null 2>&1
"$DSIM" trace "$TMP/t.gz" --syscall futex | grep -q "FUTEX_LOCK_PI_PRIVATE.*blocks" ||
    fail "no thread waited in FUTEX_LOCK_PI: the hand-over was not tested"
h2=$(same_hash_twice 2 "$prog") || exit 1
[ "$h1" != "$h2" ] || fail "seeds 1 and 2 gave one hash"
note "futex_pi as natively; hashes $h1 and $h2"
