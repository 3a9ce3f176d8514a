#!/bin/bash
# race_counter.c under dsim: a lost-update race that needs a thread switch at
# the syscall inside a read-modify-write. `dsim run` over seeds 1-100 finds a
# seed that loses updates, that seed replays to the same failure and is
# deterministic (`dsim verify --runs 20`), and the schedule follows the seed
# (different seeds, different hashes).
. "$(dirname "$0")/lib.sh"

dsim_timeout

prog=$(build race_counter) || exit 1
THREADS=3 ITERS=50 EXPECTED=150

# check_output FILE RC: the output is "count C expected E" then either
# "no lost updates" (exit 0, C = E) or "lost N updates" (exit 1, N = E - C).
check_output() {
    local f=$1 rc=$2 c e
    c=$(sed -n 's/^count \([0-9]*\) expected \([0-9]*\)$/\1/p' "$f")
    e=$(sed -n 's/^count \([0-9]*\) expected \([0-9]*\)$/\2/p' "$f")
    [ -n "$c" ] && [ -n "$e" ] || { cat "$f" >&2; fail "$f: no count line"; }
    [ "$(wc -l <"$f")" = 2 ] || { cat "$f" >&2; fail "$f: expected 2 lines"; }
    if [ "$c" = "$e" ]; then
        [ "$rc" = 0 ] && grep -qx 'no lost updates' "$f" || fail "$f: count $c = $e but exit $rc"
    else
        [ "$rc" = 1 ] && grep -qx "lost $((e - c)) updates" "$f" || fail "$f: count $c != $e but exit $rc"
    fi
}

# Natively: one thread cannot lose updates (deterministic); with three the
# output depends on the schedule, but the exit status always matches it.
for i in 1 2 3; do
    "$prog" 1 500 >"$TMP/native1.out" || fail "race_counter 1 500 failed natively"
    printf 'count 500 expected 500\nno lost updates\n' | diff - "$TMP/native1.out" >&2 ||
        fail "race_counter 1 500: unexpected native output"
done
"$prog" $THREADS $ITERS >"$TMP/native3.out"; rc=$?
check_output "$TMP/native3.out" $rc
grep -q "expected $EXPECTED\$" "$TMP/native3.out" || fail "native: expected is not $EXPECTED"

# One seed twice: same output, same hash; the output is consistent.
h1=$(same_hash_twice 1 "$prog" $THREADS $ITERS) || exit 1
note "seed 1 hash $h1"
dsim_exec 1 "$prog" $THREADS $ITERS >"$TMP/s1.out"; rc=$?
case $rc in 0|1) ;; *) cat "$TMP/exec.err" >&2; fail "seed 1: dsim exec exit $rc" ;; esac
check_output "$TMP/s1.out" $rc

# The schedule follows the seed: over seeds 1-4, not all hashes are equal.
hashes=$h1
for s in 2 3 4; do
    dsim_exec $s "$prog" $THREADS $ITERS >"$TMP/s$s.out"; rc=$?
    case $rc in 0|1) ;; *) cat "$TMP/exec.err" >&2; fail "seed $s: dsim exec exit $rc" ;; esac
    check_output "$TMP/s$s.out" $rc
    h=$(exec_hash)
    [ -n "$h" ] || fail "seed $s: no trace hash"
    hashes="$hashes $h"
done
[ "$(echo $hashes | tr ' ' '\n' | sort -u | wc -l)" -ge 2 ] ||
    fail "seeds 1-4 all have the trace hash $h1: the schedule does not follow the seed"

# dsim run over seeds 1-100 finds a seed that loses updates.
write_conf "$TMP/race.conf" <<CONF
[simulation]
duration = 30s

[machine main]
command = '$prog' $THREADS $ITERS
CONF
DSIM_TIMEOUT=300 "$DSIM" run "$TMP/race.conf" --seeds 1-100 >"$TMP/run.out" 2>"$TMP/run.err"; rc=$?
[ "$rc" = 1 ] || { cat "$TMP/run.out" "$TMP/run.err" >&2; fail "dsim run --seeds 1-100: exit $rc, expected 1"; }
S=$(sed -n 's/^seed \([0-9][0-9]*\) FAILED.*/\1/p' "$TMP/run.out" | head -n 1)
[ -n "$S" ] || { cat "$TMP/run.out" >&2; fail "the report names no failing seed"; }
[ "$S" -ge 1 ] && [ "$S" -le 100 ] || fail "failing seed $S is not in 1-100"
grep -Eq 'status 1|lost [0-9]+ updates' "$TMP/run.out" ||
    { cat "$TMP/run.out" >&2; fail "seed $S did not fail by the program exiting 1 (lost updates)"; }
note "seed $S loses updates"

# The seeds before it pass (run stops at the first failure); it fails again.
if [ "$S" -gt 1 ]; then
    DSIM_TIMEOUT=300 "$DSIM" run "$TMP/race.conf" --seeds "1-$((S - 1))" >"$TMP/before.out" 2>&1 ||
        { cat "$TMP/before.out" >&2; fail "seeds 1-$((S - 1)) do not pass on their own"; }
fi
"$DSIM" run "$TMP/race.conf" --seeds "$S" >"$TMP/again.out" 2>&1; rc=$?
[ "$rc" = 1 ] && grep -q "^seed $S FAILED" "$TMP/again.out" ||
    { cat "$TMP/again.out" >&2; fail "seed $S alone: exit $rc, the failure does not replay"; }

# That seed is deterministic: 20 runs, one hash.
DSIM_TIMEOUT=300 "$DSIM" verify "$TMP/race.conf" --seed "$S" --runs 20 >"$TMP/verify.out" 2>"$TMP/verify.err"; rc=$?
[ "$rc" = 0 ] || { cat "$TMP/verify.out" "$TMP/verify.err" >&2; fail "dsim verify --seed $S --runs 20: exit $rc"; }
tail -n 1 "$TMP/verify.out" | grep -Eqx '[0-9a-f]{32}' ||
    { cat "$TMP/verify.out" >&2; fail "dsim verify: the last line is not a trace hash"; }
note "seed $S: 20 runs, hash $(tail -n 1 "$TMP/verify.out")"
note "ok"
