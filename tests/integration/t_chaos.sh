#!/bin/bash
# Random faults from [chaos]: drawn from the seed, so one seed gives one
# plan and one hash while seeds differ; swarm makes some seeds calm and
# others hostile; every drawn fault is in the recorded plan.
. "$(dirname "$0")/lib.sh"
dsim_timeout
cd "$TMP" || exit 1
write_conf c.conf <<'CONF'
[simulation]
duration = 40s
[machine worker]
command = for i in 1 2 3; do sleep 1; done; echo done
[machine bystander]
command = sleep 30
daemon = true
[chaos]
machines = worker
crash = 6s
crash_down = 500ms..2s
pause = 5s
pause_for = 100ms..1s
clock_jump = 10s
clock_jump_by = -2s..2s
CONF
h1=$(fault_plan c.conf 1); cp p1.json p1a.json; h2=$(fault_plan c.conf 1)
[ -n "$h1" ] && [ "$h1" = "$h2" ] || fail "one seed gave two hashes: $h1 vs $h2"
cmp -s p1.json p1a.json || fail "one seed gave two plans"
python3 - p1.json <<'PY' || fail "the plan of seed 1 has no chaos faults on worker"
import json, sys
f = json.load(open(sys.argv[1]))["faults"]
assert f and all(x["name"].startswith("chaos-") and x["machine"] == "worker" for x in f), f
PY
fault_plan c.conf 2 >/dev/null
! cmp -s p1.json p2.json || fail "seeds 1 and 2 drew the same faults"
# swarm: each seed draws which kinds are on. Without it every seed of a
# 15 s run fires all three kinds (the first of each comes within twice its
# mean, 2 s), so a varying count comes from swarm alone.
write_conf s.conf <<'CONF'
[simulation]
duration = 20s
[machine worker]
command = sleep 15
[chaos]
crash = 1s
crash_down = 10ms..20ms
pause = 1s
pause_for = 10ms..20ms
clock_jump = 1s
CONF
for s in 1 2 3 4 5 6 7 8; do fault_plan s.conf $s >/dev/null; done
python3 - p1.json p2.json p3.json p4.json p5.json p6.json p7.json p8.json <<'PY' || fail "without swarm, a seed did not fire every kind"
import json, sys
for p in sys.argv[1:]:
    assert {x["kind"] for x in json.load(open(p))["faults"]} == {"crash", "pause", "clock_jump"}, p
PY
sed -i 's/^\[chaos\]$/[chaos]\nswarm = true/' s.conf
kinds=$(swarm_varies s.conf) || exit 1
note "fault kinds per seed under swarm:$kinds"
# A [chaos] target that is not a machine is a config error.
printf '[machine a]\ncommand = true\n[chaos]\nmachines = nope\ncrash = 1s\n' > bad.conf
timeout -k 5 60 "$DSIM" run bad.conf --seeds 1 2>err.txt; [ $? = 2 ] || fail "bad [chaos] machine not refused"
grep -q 'bad.conf:3: \[chaos\] names no machine of this file: "nope"' err.txt || fail "error: $(cat err.txt)"
