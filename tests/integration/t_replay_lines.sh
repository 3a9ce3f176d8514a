#!/bin/bash
# Every printed command that redoes a run redoes it exactly: a sweep run
# with --plan, --tsc and -D prints replay and shrink lines (and writes the
# replay to --results and JUnit) that carry them, and the printed replay
# line, run as printed, gives the sweep's trace hash. Without --plan in it,
# the line would replay the config's five faults: another hash.
. "$(dirname "$0")/lib.sh"
cd "$TMP" || exit 1
cp "$SRCDIR/tests/integration/crash_noise.conf" c.conf
# The crash alone, as a plan (what dsim shrink makes).
timeout -k 5 60 "$DSIM" replay c.conf 1 -D WHAT=state --plan-out full.json >/dev/null 2>&1
python3 - <<'PY' || fail "cannot make a plan of the crash alone"
import json
p = json.load(open("full.json"))
p["faults"] = [f for f in p["faults"] if f["name"] == "the-crash"]
json.dump(p, open("crash.json", "w"))
PY
opts=(--plan crash.json --tsc rewrite -D 'WHAT=found state' --set CRASH_AT=5s)
timeout -k 5 120 "$DSIM" run c.conf --seeds 1-2 -j 1 "${opts[@]}" --results r.jsonl --junit j.xml >run.out 2>run.err
[ $? = 1 ] || { cat run.out run.err; fail "seed 1 should fail"; }
grep -q '^    found state from before the crash' run.out || { cat run.out; fail "-D WHAT did not reach the machine"; }
want="dsim replay c.conf 1 --plan crash.json --tsc rewrite -D 'WHAT=found state' -D CRASH_AT=5s"
line=$(sed -n 's/^  replay: //p' run.out)
[ "$line" = "$want" ] || fail "replay line: $line (want: $want)"
json_line=$(python3 -c 'import json; print(json.loads(open("r.jsonl").readline())["replay"])')
[ "$json_line" = "$want" ] || fail "--results replay: $json_line"
grep -qF "replay: dsim replay c.conf 1 --plan crash.json --tsc rewrite -D &apos;WHAT=found state&apos; -D CRASH_AT=5s" j.xml ||
    grep -qF "replay: dsim replay c.conf 1 --plan crash.json --tsc rewrite -D 'WHAT=found state' -D CRASH_AT=5s" j.xml ||
    { cat j.xml; fail "the JUnit report has not the replay line"; }
grep -qF "shrink them: dsim shrink c.conf 1 --plan crash.json --tsc rewrite -D 'WHAT=found state' -D CRASH_AT=5s" run.out ||
    { cat run.out; fail "the shrink line lacks the options"; }
h_sweep=$(result_of r.jsonl 1 | cut -d' ' -f1)
h_replay=$(eval "timeout -k 5 60 \"\$DSIM\" ${line#dsim }" 2>/dev/null | sed -n 's/^trace hash //p')
[ -n "$h_sweep" ] && [ "$h_sweep" = "$h_replay" ] || fail "the printed replay line gives $h_replay, the sweep $h_sweep"
# The line without --plan is another run: the test would catch a line that lost it.
h_noplan=$(timeout -k 5 60 "$DSIM" replay c.conf 1 --tsc rewrite -D 'WHAT=found state' -D CRASH_AT=5s 2>/dev/null | sed -n 's/^trace hash //p')
[ "$h_noplan" != "$h_sweep" ] || fail "the plan does not change the run: this test proves nothing"
# A single seed run with --trace prints the same line; so does replay.
timeout -k 5 60 "$DSIM" run c.conf --seeds 1 --trace t.gz "${opts[@]}" >trace.out 2>&1
[ "$(sed -n 's/^  replay: //p' trace.out)" = "$want" ] || { cat trace.out; fail "run --trace: another replay line"; }
timeout -k 5 60 "$DSIM" replay c.conf 1 "${opts[@]}" >replay.out 2>&1
[ "$(sed -n 's/^  replay: //p' replay.out)" = "$want" ] || { cat replay.out; fail "replay: another replay line"; }
# dsim shrink's own replay line keeps --tsc and -D (its plan replaces --plan);
# its plan goes to $TMPDIR by default, not to the current directory.
mkdir scratch
TMPDIR=$TMP/scratch timeout -k 5 120 "$DSIM" shrink c.conf 1 "${opts[@]}" >shrink.out 2>&1 || { cat shrink.out; fail "shrink failed"; }
grep -qxF "written to $TMP/scratch/dsim-plan-1.json" shrink.out || { cat shrink.out; fail "shrink did not write to \$TMPDIR"; }
[ ! -e dsim-plan-1.json ] || fail "shrink wrote its plan into the current directory"
sline=$(sed -n 's/^replay: //p' shrink.out)
[ "$sline" = "dsim replay c.conf 1 --plan $TMP/scratch/dsim-plan-1.json --tsc rewrite -D 'WHAT=found state' -D CRASH_AT=5s" ] ||
    fail "shrink's replay line: $sline"
h_shrunk=$(eval "timeout -k 5 60 \"\$DSIM\" ${sline#dsim }" 2>/dev/null | sed -n 's/^trace hash //p')
[ "$h_shrunk" = "$h_sweep" ] || fail "shrink's replay line gives $h_shrunk, not $h_sweep (the plan was the crash alone)"
note "replay line: $line"
