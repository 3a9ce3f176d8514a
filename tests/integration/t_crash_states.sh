#!/bin/bash
# dsim crash-states CONF SEED: the distinct disk states a crash of the
# seed's run may leave, each run to the end. For a seed on which a log
# replaced by rename without a directory fsync (rename_log) loses an
# acknowledged record at its one crash, the crash has more than one state:
# at least one (every rename kept) passes and at least one (a rename
# undone) fails. It prints one line per state, "state K: DESCRIPTION: pass"
# or "state K: DESCRIPTION: FAILED ...", then "N crash states: P pass, F
# fail"; the states are distinct, and a second call prints the same.
. "$(dirname "$0")/lib.sh"
prog=$(build rename_log)
# One crash at a fixed time, about ten renames in: the crash is unambiguous
# and its state with every name operation kept loses nothing.
write_conf "$TMP/lazy.conf" <<CONF
[simulation]
duration = 60s
[machine log]
command = exec $prog /var/tmp/names
command-after-restart = exec $prog /var/tmp/names
[fault power]
kind = crash
at = 1050ms
machine = log
duration = 200ms
[check]
command = awk -f $PROGS/lost_acks.awk log.stdout
CONF
seed=$(first_failure "$TMP/lazy.conf" 1-30 "rename without a directory fsync") || exit 1

timeout -k 5 120 "$DSIM" crash-states "$TMP/lazy.conf" "$seed" >"$TMP/s1.out" 2>"$TMP/s1.err"; rc1=$?
timeout -k 5 120 "$DSIM" crash-states "$TMP/lazy.conf" "$seed" >"$TMP/s2.out" 2>"$TMP/s2.err"; rc2=$?
[ "$rc1" = 0 ] || [ "$rc1" = 1 ] || { cat "$TMP/s1.out" "$TMP/s1.err"; fail "dsim crash-states exited $rc1"; }
[ "$rc1" = "$rc2" ] || fail "dsim crash-states exited $rc1, then $rc2"
cmp -s "$TMP/s1.out" "$TMP/s2.out" || { diff "$TMP/s1.out" "$TMP/s2.out"; fail "dsim crash-states printed different states on a second call"; }

summary=$(tail -n 1 "$TMP/s1.out")
read -r n p f <<<"$(sed -n 's/^\([0-9]*\) crash states: \([0-9]*\) pass, \([0-9]*\) fail$/\1 \2 \3/p' <<<"$summary")"
[ -n "${f:-}" ] || { cat "$TMP/s1.out" "$TMP/s1.err"; fail "no summary line \"N crash states: P pass, F fail\""; }
lines=$(grep -c '^state [0-9]*: ' "$TMP/s1.out")
passes=$(grep -Ec '^state [0-9]+: .*: pass$' "$TMP/s1.out")
fails=$(grep -Ec '^state [0-9]+: .*: FAILED' "$TMP/s1.out")
[ "$lines" = "$n" ] || { cat "$TMP/s1.out"; fail "$lines state lines, but the summary says $n"; }
[ "$passes" = "$p" ] && [ "$fails" = "$f" ] && [ $((p + f)) = "$n" ] ||
    { cat "$TMP/s1.out"; fail "the outcomes ($passes pass, $fails FAILED) do not add up to the summary: $summary"; }
[ "$n" -gt 1 ] || { cat "$TMP/s1.out"; fail "only $n crash state"; }
[ "$p" -ge 1 ] || { cat "$TMP/s1.out"; fail "no crash state passes (keeping every rename should)"; }
[ "$f" -ge 1 ] || { cat "$TMP/s1.out"; fail "no crash state fails, but seed $seed failed"; }
# The states are distinct: no description repeats.
d=$(sed -En 's/^state [0-9]+: (.*): (pass|FAILED.*)$/\1/p' "$TMP/s1.out" | sort -u | wc -l)
[ "$d" = "$n" ] || { cat "$TMP/s1.out"; fail "$n states but $d distinct descriptions"; }
# The failing state replays: it fails, twice with one hash.
state=$(sed -n 's/^replay the first failing state: .* --crash-state \([0-9:.]*\)$/\1/p' "$TMP/s1.out")
[ -n "$state" ] || { cat "$TMP/s1.out"; fail "no replay command for the failing state"; }
for i in 1 2; do
    timeout -k 5 60 "$DSIM" replay "$TMP/lazy.conf" "$seed" --crash-state "$state" >"$TMP/r$i.out" 2>/dev/null
    [ $? = 1 ] || { cat "$TMP/r$i.out"; fail "crash state $state did not fail on replay"; }
done
[ "$(tail -n 1 "$TMP/r1.out")" = "$(tail -n 1 "$TMP/r2.out")" ] || fail "crash state $state replayed with two hashes"
grep -q -- "--crash-state $state" "$TMP/r1.out" || fail "the replay line does not name the crash state"
# --at and --machine: the same crash, made by crash-states itself on a
# configuration without faults, gives the same states, and its replay
# command (with the plan it wrote) fails as the state says.
sed '/^\[fault power\]/,/^duration/d' "$TMP/lazy.conf" >"$TMP/calm.conf"
(cd "$TMP" && timeout -k 5 120 "$DSIM" crash-states calm.conf "$seed" --at 1050ms --machine log >"$TMP/at.out" 2>&1)
grep '^state ' "$TMP/s1.out" | diff - <(grep '^state ' "$TMP/at.out") >&2 || fail "--at gave other states than the [fault] crash"
cmd=$(sed -n 's/^replay the first failing state: //p' "$TMP/at.out")
# The plan goes to $TMPDIR (here $TMP), named in the replay command.
[ -n "$cmd" ] && [ -f "$TMP/dsim-crash-plan-$seed.json" ] && echo "$cmd" | grep -qF -- "--plan $TMP/dsim-crash-plan-$seed.json" ||
    { cat "$TMP/at.out"; fail "--at wrote no plan or no replay command"; }
(cd "$TMP" && timeout -k 5 60 "$DSIM" ${cmd#dsim } >/dev/null 2>&1); [ $? = 1 ] || fail "the --at state did not fail on replay: $cmd"
# A file too large to walk every tear point of: the states are sampled,
# the same sample every time, and each listed state is a distinct disk.
write_conf "$TMP/big.conf" <<CONF
[simulation]
duration = 10s
[machine big]
command = head -c 100000 /dev/zero | tr '\\0' x >/var/tmp/big && sleep 5
command-after-restart = sleep 1
[fault power]
kind = crash
at = 2s
machine = big
duration = 100ms
CONF
timeout -k 5 120 "$DSIM" crash-states "$TMP/big.conf" 1 --max 6 >"$TMP/b1.out" 2>&1
timeout -k 5 120 "$DSIM" crash-states "$TMP/big.conf" 1 --max 6 >"$TMP/b2.out" 2>&1
cmp -s "$TMP/b1.out" "$TMP/b2.out" || { diff "$TMP/b1.out" "$TMP/b2.out"; fail "two samples differ"; }
grep -q 'remaining runs sample it' "$TMP/b1.out" || { cat "$TMP/b1.out"; fail "a tree of about 600 paths was not sampled"; }
nb=$(grep -c '^state [0-9]*: ' "$TMP/b1.out")
[ "$nb" -ge 2 ] && [ "$nb" -le 6 ] || { cat "$TMP/b1.out"; fail "$nb sampled states (2 to 6 expected)"; }
db=$(sed -En 's/^state [0-9]+: (.*): (pass|FAILED.*)$/\1/p' "$TMP/b1.out" | sort -u | wc -l)
[ "$db" = "$nb" ] || { cat "$TMP/b1.out"; fail "sampled states repeat"; }
note "seed $seed: $summary; a 100 kB unsynced file: $nb distinct sampled states"
