#!/bin/bash
# A thread spinning without syscalls on a flag another thread sets: natively
# it finishes; under dsim some seed gives the spinner the baton, and the
# watchdog must end that seed with a report naming the spinning function,
# within spin_limit of real time, never a hang.
. "$(dirname "$0")/lib.sh"
prog=$(build spin_wait)
[ "$("$prog")" = "flag seen" ] || fail "native run did not finish"

write_conf "$TMP/spin.conf" <<CONF
[simulation]
duration = 10s
spin_limit = 1s
[machine main]
command = $prog
CONF
start=$(date +%s)
timeout -k 5 120 "$DSIM" run "$TMP/spin.conf" --seeds 1-20 >"$TMP/run.out" 2>&1
rc=$?
elapsed=$(( $(date +%s) - start ))
[ $rc -eq 1 ] || { cat "$TMP/run.out"; fail "expected a failing seed (exit 1), got $rc"; }
grep -q "without a syscall" "$TMP/run.out" || { cat "$TMP/run.out"; fail "no spin report"; }
grep -q "spin_until_set" "$TMP/run.out" || { cat "$TMP/run.out"; fail "the report does not show the spinning function"; }
[ $elapsed -lt 60 ] || fail "took ${elapsed}s"
note "spin reported after ${elapsed}s: $(grep -m1 FAILED "$TMP/run.out")"
# A seed where the setter runs first passes: the report is about a real
# schedule, not a blanket failure.
note "seeds passed before the spin: $(sed -n 's/^failed at seed .*(\([0-9]*\) seeds passed first)/\1/p' "$TMP/run.out")"
exit 0
