#!/bin/bash
# Where a failing seed parts from a passing one, thread by thread
# (lazy_init): the global order of two seeds parts at the first choice of
# thread, so the report also names the first thread whose own calls differ.
# For a lazy-initialisation race that is the second thread going into the
# initialisation (its getpid()) where, in the passing seed, it found the
# cache built (its getppid()). dsim diff says the same.
. "$(dirname "$0")/lib.sh"
prog=$(build lazy_init)
write_conf "$TMP/c.conf" <<CONF
[machine app]
command = exec $prog
CONF
timeout -k 5 120 "$DSIM" run "$TMP/c.conf" --seeds 1-50 >"$TMP/run.out" 2>&1
[ $? = 1 ] || { cat "$TMP/run.out"; fail "no seed of 1-50 failed"; }
grep -Eq '^  the first thread to act otherwise: machine/thread app [0-9]+, after [0-9]+ of its events alike;$' "$TMP/run.out" ||
    { cat "$TMP/run.out"; fail "no per-thread divergence in the report"; }
sed -n '/first thread to act otherwise/,$p' "$TMP/run.out" | grep -A1 '^  and failing seed' | grep -qx '    getpid()' ||
    { cat "$TMP/run.out"; fail "the failing seed's first different call is not the racing getpid()"; }
f=$(sed -n 's/^failed at seed \([0-9]*\).*/\1/p' "$TMP/run.out")
p=$(sed -n 's/^  seed [0-9]*: first divergence from .*, \([0-9]*\):$/\1/p' "$TMP/run.out")
timeout -k 5 60 "$DSIM" diff "$TMP/c.conf" "$p" "$f" >"$TMP/diff.out"
grep -A1 "^  and seed $f ran:" "$TMP/diff.out" | tail -n 1 | grep -qx '    getpid()' ||
    { cat "$TMP/diff.out"; fail "dsim diff does not show the racing getpid()"; }
note "seed $f parts from seed $p at the second thread's getpid()"
