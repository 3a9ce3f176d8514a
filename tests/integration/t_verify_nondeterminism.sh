#!/bin/bash
# `dsim verify` and `dsim replay` would catch a non-deterministic run.
#
# dsim has no non-deterministic program by design, so: race_counter (whose
# outcome depends on the schedule) gives, under `dsim verify --seed 3 --runs
# 5`, five "run I: HASH OUTCOME" lines with one hash, that hash alone last,
# and exit 0; two different seeds give different hashes (so the hash does
# depend on the run and equal hashes are not a constant). The first failing
# seed of `dsim run --seeds 1-20` replays twice to the same "trace hash"
# line, equal to the hash in the run's report, and verify gives that hash
# too. Finally a negative control: a command whose output comes from a host
# fact dsim does not pin (the kernel's page-fault count in /proc/vmstat)
# makes verify print "NOT deterministic" and exit 1.
. "$(dirname "$0")/lib.sh"

dsim_timeout

prog=$(build race_counter) || exit 1

write_conf "$TMP/race.conf" <<CONF
[simulation]
duration = 30s

[machine main]
command = '$prog' 3 50
CONF

# check_verify FILE RUNS: RUNS lines "run I: HASH OUTCOME" (I = 1..RUNS, in
# order) with one hash, then that hash alone; prints the hash.
check_verify() {
    local f=$1 runs=$2 i h first=
    [ "$(wc -l <"$f")" = $((runs + 1)) ] || { cat "$f" >&2; fail "$f: expected $((runs + 1)) lines"; }
    for i in $(seq 1 "$runs"); do
        h=$(sed -n "${i}s/^run $i: \([0-9a-f]\{32\}\) \(pass\|exit\|time limit\|deadlock\|fence\|check\|internal\|spin\)\$/\1/p" "$f")
        [ -n "$h" ] || { cat "$f" >&2; fail "$f: line $i is not 'run $i: HASH OUTCOME'"; }
        [ -n "$first" ] || first=$h
        [ "$h" = "$first" ] || { cat "$f" >&2; fail "$f: run $i has hash $h, run 1 had $first"; }
    done
    [ "$(tail -n 1 "$f")" = "$first" ] || { cat "$f" >&2; fail "$f: the last line is not the hash $first"; }
    ! grep -q 'NOT deterministic' "$f" || { cat "$f" >&2; fail "$f: says NOT deterministic"; }
    echo "$first"
}

# verify seed 3, five runs: one hash, exit 0.
"$DSIM" verify "$TMP/race.conf" --seed 3 --runs 5 >"$TMP/v3.out" 2>"$TMP/v3.err"; rc=$?
[ "$rc" = 0 ] || { cat "$TMP/v3.out" "$TMP/v3.err" >&2; fail "dsim verify --seed 3 --runs 5: exit $rc"; }
h3=$(check_verify "$TMP/v3.out" 5) || exit 1
note "seed 3: 5 runs, hash $h3"

# Other seeds: other hashes (schedules differ, so the hash follows the run).
# Seed 4 must differ from 3; over 4-7 at least two distinct hashes besides.
others=
for s in 4 5 6 7; do
    "$DSIM" verify "$TMP/race.conf" --seed $s --runs 2 >"$TMP/v$s.out" 2>"$TMP/v$s.err"; rc=$?
    [ "$rc" = 0 ] || { cat "$TMP/v$s.out" "$TMP/v$s.err" >&2; fail "dsim verify --seed $s: exit $rc"; }
    h=$(check_verify "$TMP/v$s.out" 2) || exit 1
    others="$others $h"
done
read -r h4 _ <<<"$others"
[ "$h4" != "$h3" ] || fail "seeds 3 and 4 have the same hash $h3"
[ "$(echo $h3 $others | tr ' ' '\n' | sort -u | wc -l)" -ge 3 ] ||
    fail "seeds 3-7 give fewer than 3 distinct hashes: $h3$others"

# The first failing seed of 1-20 replays exactly.
"$DSIM" run "$TMP/race.conf" --seeds 1-20 >"$TMP/run.out" 2>"$TMP/run.err"; rc=$?
[ "$rc" = 1 ] || { cat "$TMP/run.out" "$TMP/run.err" >&2; fail "dsim run --seeds 1-20: exit $rc, expected 1 (no seed lost updates?)"; }
S=$(sed -n 's/^seed \([0-9][0-9]*\) FAILED: .*/\1/p' "$TMP/run.out" | head -n 1)
[ -n "$S" ] || { cat "$TMP/run.out" >&2; fail "dsim run: the report names no failing seed"; }
H=$(sed -n 's/^  simulated time [0-9.]*s, [0-9]* steps, trace hash \([0-9a-f]\{32\}\)$/\1/p' "$TMP/run.out")
[ -n "$H" ] || { cat "$TMP/run.out" >&2; fail "dsim run: the report has no trace hash"; }
reason=$(grep "^seed $S FAILED: " "$TMP/run.out")
note "seed $S fails, hash $H"

for i in 1 2; do
    "$DSIM" replay "$TMP/race.conf" "$S" >"$TMP/replay$i.out" 2>"$TMP/replay$i.err"; rc=$?
    [ "$rc" = 1 ] || { cat "$TMP/replay$i.out" "$TMP/replay$i.err" >&2; fail "dsim replay $S (#$i): exit $rc, expected 1"; }
    grep -qxF "$reason" "$TMP/replay$i.out" ||
        { cat "$TMP/replay$i.out" >&2; fail "dsim replay $S (#$i): not the run's failure ($reason)"; }
    tail -n 1 "$TMP/replay$i.out" | grep -Eqx 'trace hash [0-9a-f]{32}' ||
        { cat "$TMP/replay$i.out" >&2; fail "dsim replay $S (#$i): the last line is not 'trace hash HEX'"; }
done
r1=$(tail -n 1 "$TMP/replay1.out") r2=$(tail -n 1 "$TMP/replay2.out")
[ "$r1" = "$r2" ] || fail "dsim replay $S: '$r1' then '$r2'"
[ "$r1" = "trace hash $H" ] || fail "dsim replay $S: '$r1', but the run's report said $H"
cmp -s "$TMP/replay1.out" "$TMP/replay2.out" || { diff "$TMP/replay1.out" "$TMP/replay2.out" >&2; fail "dsim replay $S: the two reports differ"; }
"$DSIM" verify "$TMP/race.conf" --seed "$S" --runs 3 >"$TMP/vS.out" 2>"$TMP/vS.err"; rc=$?
[ "$rc" = 0 ] || { cat "$TMP/vS.out" "$TMP/vS.err" >&2; fail "dsim verify --seed $S: exit $rc"; }
hS=$(check_verify "$TMP/vS.out" 3) || exit 1
[ "$hS" = "$H" ] || fail "dsim verify --seed $S: hash $hS, but the run's report said $H"
grep -q '^run 1: [0-9a-f]* exit$' "$TMP/vS.out" || { cat "$TMP/vS.out" >&2; fail "verify: seed $S's outcome is not 'exit'"; }

# Negative control: the machine prints the host kernel's context-switch
# count, so each run's output (and hash) differs. verify must say so.
write_conf "$TMP/nondet.conf" <<CONF
[machine main]
command = grep ^pgfault /proc/vmstat
CONF
"$DSIM" verify "$TMP/nondet.conf" --seed 3 --runs 3 >"$TMP/vn.out" 2>"$TMP/vn.err"; rc=$?
[ "$rc" = 1 ] || { cat "$TMP/vn.out" "$TMP/vn.err" >&2; fail "verify on a non-deterministic run: exit $rc, expected 1"; }
grep -qx 'dsim: seed 3 is NOT deterministic: the hashes differ' "$TMP/vn.out" ||
    { cat "$TMP/vn.out" "$TMP/vn.err" >&2; fail "verify on a non-deterministic run: no 'NOT deterministic'"; }
[ "$(grep -E '^run [1-3]: [0-9a-f]{32} pass$' "$TMP/vn.out" | cut -d' ' -f3 | sort -u | wc -l)" = 3 ] ||
    { cat "$TMP/vn.out" >&2; fail "verify on a non-deterministic run: expected 3 distinct hashes"; }
note "ok"
