#!/bin/bash
# locked_counter.c under dsim: race_counter's read-syscall-write under a
# pthread mutex. Contended mutexes wait in futex(), which dsim emulates: no
# seed of 1-100 loses an update (`dsim run` exits 0, and a [check] confirms
# the printed count on every seed), one seed gives one hash, and the output
# is the native one.
. "$(dirname "$0")/lib.sh"

dsim_timeout

prog=$(build locked_counter) || exit 1
THREADS=3 ITERS=50

# Natively: deterministic, with any number of threads.
printf 'count 150 expected 150\nno lost updates\n' >"$TMP/expected.out"
for i in 1 2 3; do
    "$prog" $THREADS $ITERS >"$TMP/native.out" || fail "locked_counter failed natively"
    diff "$TMP/expected.out" "$TMP/native.out" >&2 || fail "unexpected native output"
    "$prog" 4 2000 >"$TMP/native4.out" || fail "locked_counter 4 2000 failed natively"
    printf 'count 8000 expected 8000\nno lost updates\n' | diff - "$TMP/native4.out" >&2 ||
        fail "locked_counter 4 2000: unexpected native output"
done

# One seed twice: the native output, one hash; seeds 2-4 print the same, but
# the schedule follows the seed.
h1=$(dsim_as_native --varies "$prog" $THREADS $ITERS) || exit 1
note "seed 1 hash $h1"

# dsim run: seeds 1-100 all pass, and on each a [check] (run natively in the
# directory holding main.stdout, with DSIM_SEED set) sees the right count.
write_conf "$TMP/locked.conf" <<CONF
[simulation]
duration = 30s

[machine main]
command = '$prog' $THREADS $ITERS

[check]
command = test -n "\$DSIM_SEED" && grep -qx 'count 150 expected 150' main.stdout && grep -qx 'no lost updates' main.stdout
CONF
DSIM_TIMEOUT=300 "$DSIM" run "$TMP/locked.conf" --seeds 1-100 >"$TMP/run.out" 2>"$TMP/run.err"; rc=$?
[ "$rc" = 0 ] || { cat "$TMP/run.out" "$TMP/run.err" >&2; fail "dsim run --seeds 1-100: exit $rc, expected 0"; }
! grep -q 'FAILED' "$TMP/run.out" || { cat "$TMP/run.out" >&2; fail "dsim run exited 0 but reports a failure"; }

# The [check] does run: one that expects a wrong count fails the seed.
sed 's/count 150 expected 150/count 151 expected 150/' "$TMP/locked.conf" >"$TMP/wrong.conf"
"$DSIM" run "$TMP/wrong.conf" --seeds 1 >"$TMP/wrong.out" 2>&1; rc=$?
[ "$rc" = 1 ] && grep -q '^seed 1 FAILED' "$TMP/wrong.out" ||
    { cat "$TMP/wrong.out" >&2; fail "a failing [check] did not fail seed 1 (exit $rc)"; }

# dsim verify: one seed, one hash.
"$DSIM" verify "$TMP/locked.conf" --seed 7 --runs 3 >"$TMP/verify.out" 2>&1 ||
    { cat "$TMP/verify.out" >&2; fail "dsim verify --seed 7 --runs 3 failed"; }
tail -n 1 "$TMP/verify.out" | grep -Eqx '[0-9a-f]{32}' || fail "dsim verify: no trace hash"
note "ok"
