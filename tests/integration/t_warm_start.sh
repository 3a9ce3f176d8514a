#!/bin/bash
# [simulation] warm_start: every seed's run up to the point is the start-up
# seed's (warm_seed), and its own after it.
#  1. warm_phases (two threads printing random bytes every 100 ms, in an
#     order the scheduler draws): with warm_start = 1s, seeds 1-3 print the
#     same first second and not the same second one; cold, the first second
#     differs too; another warm_seed gives another first second.
#     With warm_start = output m round 05, the point is right after the
#     machine printed that: seeds share rounds 00-04 and the first line of
#     round 05.
#  2. One seed, one hash: a seed of a sweep replays and verifies to the
#     sweep's hash; its trace says where the warm start was.
#  3. [chaos] begins at the point: no drawn fault fires before it, the
#     seeds' faults after it differ; a [fault] section before it fires in
#     every seed (a fault plan holds the faults that fired).
#     The trace's note at the point says whether a snapshot could copy the
#     machines there by forking: warm_phases (three threads, each made
#     again in a copy) and a lone `sleep` (with its clock page) yes; not a
#     process with fd 3 open or a shared writable mapping of its own.
#  4. A failure before the point says that every seed fails so.
#  5. Config errors: warm_start at or after the end, a bad warm_seed.
. "$(dirname "$0")/lib.sh"
dsim_timeout 120
cd "$TMP" || exit 1
cp "$(build warm_phases)" .
prog=$(pwd)/warm_phases
native=$("$prog") || fail "warm_phases failed natively"
[ "$(tail -n 1 <<<"$native")" = ok ] && [ "$(wc -l <<<"$native")" = 41 ] || fail "warm_phases natively: $native"

# --- 1. the same start-up in every seed --------------------------------------
conf() { printf '[simulation]\nduration = 10s\n%s\n[machine m]\ncommand = exec ./warm_phases\n' "$1" >"$2"; }
conf 'warm_start = 1s' warm.conf
conf '' cold.conf
conf $'warm_start = 1s\nwarm_seed = 7' seed7.conf
for c in warm cold seed7; do
    "$DSIM" run $c.conf --seeds 1-3 -j 2 --output "out-$c" --results "$c.jsonl" >"$c.log" 2>&1 ||
        { cat "$c.log" >&2; fail "$c: a seed failed"; }
    for s in 1 2 3; do
        [ "$(tail -n 1 "out-$c/seed-$s/m.stdout")" = ok ] || fail "$c seed $s did not end in ok"
        head -n 20 "out-$c/seed-$s/m.stdout" >"$c-$s.first"
        sed -n 21,40p "out-$c/seed-$s/m.stdout" >"$c-$s.second"
    done
done
cmp -s warm-1.first warm-2.first && cmp -s warm-1.first warm-3.first ||
    { diff warm-1.first warm-2.first >&2; fail "warm start: seeds printed different first seconds"; }
! { cmp -s warm-1.second warm-2.second && cmp -s warm-1.second warm-3.second; } ||
    fail "warm start: seeds 1-3 printed the same second second"
! { cmp -s cold-1.first cold-2.first && cmp -s cold-1.first cold-3.first; } ||
    fail "cold: seeds 1-3 printed the same first second (the check above would prove nothing)"
cmp -s seed7-1.first seed7-2.first || fail "warm_seed = 7: seeds printed different first seconds"
! cmp -s seed7-1.first warm-1.first || fail "warm_seed 7 and 0 gave the same start-up"
note "warm: one first second in seeds 1-3, $(cat warm-*.second | sort -u | wc -l) distinct lines after it"
conf 'warm_start = output m round 05' printed.conf
"$DSIM" run printed.conf --seeds 1-3 -j 2 --output out-printed >printed.log 2>&1 ||
    { cat printed.log >&2; fail "printed: a seed failed"; }
for s in 1 2 3; do head -n 11 "out-printed/seed-$s/m.stdout" >"printed-$s.first"; done
cmp -s printed-1.first printed-2.first && cmp -s printed-1.first printed-3.first ||
    fail "warm_start = output: the seeds printed different start-ups"
[ "$(tail -n 1 printed-1.first | cut -c1-8)" = "round 05" ] || fail "printed-1.first: $(cat printed-1.first)"
! { cmp -s out-printed/seed-1/m.stdout out-printed/seed-2/m.stdout &&
    cmp -s out-printed/seed-1/m.stdout out-printed/seed-3/m.stdout; } || fail "warm_start = output: seeds 1-3 printed the same"

# --- 2. one seed, one hash ---------------------------------------------------
hash_of() { python3 -c 'import json,sys
for l in open(sys.argv[1]):
    r = json.loads(l)
    if r["seed"] == int(sys.argv[2]): print(r["hash"])' "$1" "$2"; }
swept=$(hash_of warm.jsonl 2)
[ -n "$swept" ] || fail "no hash for seed 2 in warm.jsonl"
"$DSIM" replay warm.conf 2 --trace t2.gz >replay.out 2>&1 || { cat replay.out >&2; fail "replay of seed 2 failed"; }
grep -q "trace hash $swept" replay.out || { cat replay.out >&2; fail "replay of seed 2: not the sweep's hash $swept"; }
"$DSIM" trace t2.gz | grep -q '^1\.0[0-9]* - 0 warm start: seed 2 from here (start-up seed 0)$' ||
    fail "the trace does not show the warm start at 1 s"
"$DSIM" trace t2.gz | grep -q '^  | warm start: a snapshot could copy every machine here$' ||
    fail "the trace's note does not say a snapshot could copy warm_phases' three threads"
copy_note() {
    printf '[simulation]\nwarm_start = 1s\n[machine m]\ncommand = %s\n' "$1" >note.conf
    "$DSIM" replay note.conf 1 --trace note.gz >/dev/null 2>&1 || fail "note.conf ($1) failed"
    "$DSIM" trace note.gz | sed -n 's/^  | warm start: a snapshot //p'
}
# (sleep's clock page, a writable shared mapping, is dsim's: no obstacle.)
[ "$(copy_note 'exec sleep 2')" = "could copy every machine here" ] || fail "sleep: $(copy_note 'exec sleep 2')"
shm='exec python3 -c "import mmap, time; m = mmap.mmap(-1, 4096); time.sleep(2)"'
[ "$(copy_note "$shm")" = "could not copy machine m: a writable shared mapping (anonymous)" ] ||
    fail "a program's own shared mapping: $(copy_note "$shm")"
[ "$(copy_note 'exec 3</dev/null; exec sleep 2')" = "could not copy machine m: fd 3 open (/dev/null)" ] ||
    fail "sleep with fd 3: $(copy_note 'exec 3</dev/null; exec sleep 2')"
"$DSIM" verify warm.conf --seed 3 --runs 2 >verify.out 2>&1 || { cat verify.out >&2; fail "verify of seed 3 failed"; }
[ "$(grep -c "^run [0-9]*: $(hash_of warm.jsonl 3) pass" verify.out)" = 2 ] ||
    { cat verify.out >&2; fail "verify of seed 3: not twice the sweep's hash"; }

# --- 3. [chaos] before and after the point -----------------------------------
write_conf chaos.conf <<'CONF'
[simulation]
duration = 40s
warm_start = 12s
[machine worker]
command = for i in $(seq 20); do sleep 1; done; echo done
[fault early]
kind = pause
at = 5s
machine = worker
duration = 1s
[chaos]
machines = worker
pause = 2s
pause_for = 100ms..1s
clock_jump = 3s
clock_jump_by = -2s..2s
CONF
for s in 1 2 3; do fault_plan chaos.conf $s >/dev/null; done
python3 - p1.json p2.json p3.json <<'PY' || fail "chaos under a warm start: see above"
import json, sys
plans = [json.load(open(p))["faults"] for p in sys.argv[1:]]
point = 12 * 10**9
before = [[f for f in p if f["at_ns"] < point] for p in plans]
after = [[f for f in p if f["at_ns"] >= point] for p in plans]
assert all([f["name"] for f in b] == ["early"] for b in before), before
assert all(after) and not (after[0] == after[1] == after[2]), after
assert all(f["name"].startswith("chaos-") for a in after for f in a), after
PY

# --- 4. a failure before the point -------------------------------------------
printf '[simulation]\nwarm_start = 5s\n[machine m]\ncommand = exit 3\n' >early.conf
"$DSIM" run early.conf --seeds 1 >early.out 2>&1; [ $? = 1 ] || { cat early.out >&2; fail "exit 3 did not fail the seed"; }
grep -q "warm start at 5.000000000s: the run up to there is start-up seed 0's, the same in every seed (this one ended before it: so will every seed)" early.out ||
    { cat early.out >&2; fail "the report does not say the seed ended before its warm start"; }

# --- 5. config errors ----------------------------------------------------------
# refused NAME SIMULATION-LINES MESSAGE: a config with those [simulation]
# lines is refused with status 2 and NAME.conf:MESSAGE.
refused() {
    printf '[simulation]\n%s\n[machine m]\ncommand = true\n' "$2" >"$1.conf"
    "$DSIM" run "$1.conf" --seeds 1 2>err.txt; [ $? = 2 ] || fail "$1: not refused"
    grep -qF "$1.conf:$3" err.txt || fail "$1: error: $(cat err.txt)"
}
refused late $'duration = 2s\nwarm_start = 2s' '3: warm_start is at or after the end of the run ([simulation] duration)'
refused badseed $'warm_start = 1s\nwarm_seed = -1' '3: bad warm_seed "-1"'
refused noname 'warm_start = output n ready' '2: warm_start names no machine of this file: "n"'
refused notext 'warm_start = output m' '2: bad warm_start "output m" (use output MACHINE TEXT)'
refused zero 'warm_start = 0' '2: bad warm_start "0" (use a duration greater than 0'
