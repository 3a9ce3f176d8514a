#!/bin/bash
# Fault plans and shrinking: every fault that fires is recorded as a plan;
# --plan replays a plan instead of the config's faults; dsim shrink reduces
# a failing seed's five faults to the one that matters, and that minimal
# plan replays the failure with one trace hash.
. "$(dirname "$0")/lib.sh"
cd "$TMP" || exit 1
cp "$SRCDIR/tests/integration/crash_noise.conf" c.conf
timeout -k 5 60 "$DSIM" run c.conf --seeds 1 >run.out; [ $? = 1 ] || fail "the seed should fail"
# Each fault that fired, with its time and target, in the order it fired.
[ "$(sed -n '/^  faults that fired:$/,/^  shrink them/p' run.out | sed '1d;$d' | tr '\n' '|')" = \
  "    1.000000000s noise1: pause of app|    2.000000000s noise2: clock_jump of other|    4.000000000s the-crash: restart of app|    6.000000000s noise3: pause of other|    7.000000000s noise4: clock_jump of app|" ] ||
    fail "the report does not list the faults: $(cat run.out)"
grep -q "shrink them: dsim shrink c.conf 1" run.out || fail "the report does not say how to shrink"
timeout -k 5 60 "$DSIM" replay c.conf 1 --plan-out full.json >/dev/null
[ "$(python3 -c 'import json,sys; print(len(json.load(open("full.json"))["faults"]))')" = 5 ] || fail "the recorded plan does not hold 5 faults"
timeout -k 5 120 "$DSIM" shrink c.conf 1 --plan-out min.json >shrink.out || { cat shrink.out; fail "shrink failed"; }
grep -Eq "^shrank [0-9]+ events / 5 faults -> [0-9]+ events / 1 fault in [0-9]+ candidate runs$" shrink.out ||
    fail "shrink summary: $(cat shrink.out)"
[ "$(grep -c '^  removed noise' shrink.out)" = 4 ] || fail "shrink did not report the 4 removed faults"
python3 - <<'PY' || fail "the minimal plan is not the crash alone"
import json
f = json.load(open("min.json"))["faults"]
assert [x["name"] for x in f] == ["the-crash"], f
PY
h1=$(timeout -k 5 60 "$DSIM" replay c.conf 1 --plan min.json | sed -n 's/^trace hash //p')
h2=$(timeout -k 5 60 "$DSIM" replay c.conf 1 --plan min.json | sed -n 's/^trace hash //p')
[ -n "$h1" ] && [ "$h1" = "$h2" ] || fail "the minimal plan does not replay with one hash: $h1 vs $h2"
timeout -k 5 60 "$DSIM" replay c.conf 1 --plan min.json | grep -q "^seed 1 FAILED: machine app exited with status 1" ||
    fail "the minimal plan does not reproduce the failure"
# Without the crash the seed passes: the plan replaces the config's faults.
echo '{"faults": []}' >none.json
timeout -k 5 60 "$DSIM" run c.conf --seeds 1 --plan none.json >/dev/null || fail "an empty plan should pass"
