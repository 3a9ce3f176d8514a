#!/bin/bash
# deadlock.c under dsim: two threads lock two mutexes in opposite orders with
# a syscall in between. Over seeds 1-50 some seed deadlocks: `dsim exec`
# exits 125 and its report says "deadlock" and names both lockers' threads
# (blocked in futex); every other seed finishes normally, none hangs. The
# deadlock is deterministic (one seed, one hash), `dsim run` reports it as a
# failed seed, and with the locks taken in one order no seed deadlocks.
. "$(dirname "$0")/lib.sh"

dsim_timeout

prog=$(build deadlock) || exit 1

# check_lockers FILE: two "locker A|B tid N" lines with distinct tids; prints
# the tids.
check_lockers() {
    local a b
    a=$(sed -n 's/^locker A tid \([0-9][0-9]*\)$/\1/p' "$1")
    b=$(sed -n 's/^locker B tid \([0-9][0-9]*\)$/\1/p' "$1")
    [ -n "$a" ] && [ -n "$b" ] && [ "$a" != "$b" ] || { cat "$1" >&2; fail "$1: no two locker lines"; }
    echo "$a $b"
}

# Natively, only the ordered variant (the other may really deadlock).
for i in 1 2 3; do
    "$prog" --ordered >"$TMP/native.out" || fail "deadlock --ordered failed natively"
    check_lockers "$TMP/native.out" >/dev/null
    [ "$(tail -n 1 "$TMP/native.out")" = "both threads done" ] || fail "native: no 'both threads done'"
    [ "$(wc -l <"$TMP/native.out")" = 3 ] || fail "native: expected 3 lines"
done

deadlocked= passed= hashes=
for s in $(seq 1 50); do
    dsim_exec $s "$prog" >"$TMP/out.$s"; rc=$?
    cp "$TMP/exec.err" "$TMP/err.$s"
    case $rc in
    0)
        check_lockers "$TMP/out.$s" >/dev/null
        [ "$(tail -n 1 "$TMP/out.$s")" = "both threads done" ] || fail "seed $s: exit 0 without finishing"
        passed="$passed $s"
        ;;
    125)
        grep -q deadlock "$TMP/err.$s" || { cat "$TMP/err.$s" >&2; fail "seed $s: exit 125 but no deadlock report"; }
        ! grep -q 'both threads done' "$TMP/out.$s" || fail "seed $s: deadlock reported after the threads finished"
        tids=$(check_lockers "$TMP/out.$s") || exit 1
        for t in $tids; do
            grep -Eq "thread $t( |\$|[^0-9])" "$TMP/err.$s" ||
                { cat "$TMP/err.$s" >&2; fail "seed $s: the deadlock report does not name thread $t"; }
        done
        grep -q futex "$TMP/err.$s" || { cat "$TMP/err.$s" >&2; fail "seed $s: the report does not mention futex"; }
        deadlocked="$deadlocked $s"
        ;;
    124) fail "seed $s: dsim hung (or hit the time limit) instead of reporting the deadlock" ;;
    *) cat "$TMP/err.$s" >&2; fail "seed $s: exit $rc" ;;
    esac
    h=$(exec_hash)
    [ -n "$h" ] || { cat "$TMP/err.$s" >&2; fail "seed $s: no trace hash"; }
    hashes="$hashes $h"
done
note "deadlocked:$deadlocked"
note "passed:${passed:- none}"
[ -n "$deadlocked" ] || fail "no seed of 1-50 deadlocked"
[ "$(echo $hashes | tr ' ' '\n' | sort -u | wc -l)" -ge 2 ] ||
    fail "seeds 1-50 all have one trace hash: the schedule does not follow the seed"

# A deadlocking seed, twice: one hash, one output.
read -r S _ <<<"$deadlocked"
h=$(same_hash_twice "$S" "$prog") || exit 1
dsim_exec "$S" "$prog" >/dev/null; rc=$?
[ "$rc" = 125 ] || fail "seed $S: deadlocked once, then exit $rc"
note "seed $S hash $h"
if [ -n "$passed" ]; then
    read -r P _ <<<"$passed"
    dsim_exec "$P" "$prog" >/dev/null
    [ "$(exec_hash)" != "$h" ] || fail "a passing and a deadlocking seed have the same trace hash"
fi

# dsim run finds the deadlock too: the seed fails, and the report says why.
write_conf "$TMP/deadlock.conf" <<CONF
[machine main]
command = '$prog'
CONF
DSIM_TIMEOUT=300 "$DSIM" run "$TMP/deadlock.conf" --seeds 1-50 >"$TMP/run.out" 2>&1; rc=$?
[ "$rc" = 1 ] || { cat "$TMP/run.out" >&2; fail "dsim run --seeds 1-50: exit $rc, expected 1"; }
grep -q '^seed [0-9][0-9]* FAILED' "$TMP/run.out" && grep -q deadlock "$TMP/run.out" ||
    { cat "$TMP/run.out" >&2; fail "dsim run: the report names no seed or no deadlock"; }

# Locks taken in one order: no seed deadlocks.
for s in $(seq 1 10); do
    dsim_exec $s "$prog" --ordered >"$TMP/ordered.out"; rc=$?
    [ "$rc" = 0 ] || { cat "$TMP/exec.err" >&2; fail "deadlock --ordered, seed $s: exit $rc"; }
    [ "$(tail -n 1 "$TMP/ordered.out")" = "both threads done" ] || fail "--ordered seed $s: not done"
done
note "ok"
