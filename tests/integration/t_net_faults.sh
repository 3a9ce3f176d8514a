#!/bin/bash
# Network faults in [fault NAME] and [chaos].
#  1. Scheduled: a partition rcv | snd over [0, 300ms), a 50% loss burst on
#     the links of snd and cli over [0, 1.5s), a one-way partition cutting
#     srv off from the rest at 2s and a duplicate burst from 2.5s fire as
#     trace events naming their machines; the partition drops the UDP
#     datagrams between its sides only while it lasts, the burst drops
#     datagrams only while it lasts, and the TCP transfer (tcp_flow) under
#     it is retransmitted, never loses a byte, and passes. Each is in the
#     recorded plan, which replays to the run's hash; without faults the
#     run differs. `dsim verify` gives one hash twice.
#  2. [chaos] partitions, loss and duplicate bursts: one seed gives one plan
#     and one hash, two seeds differ; under swarm, seeds draw different
#     kinds.
#  3. Errors: a bad sides key is a FILE:LINE error, a plan with a partition
#     naming no machine is refused, both with exit status 2.
# No real network: see netns.sh.
. "$(dirname "$0")/netns.sh"
. "$(dirname "$0")/lib.sh"
net_dsim_wrapper 60
U=$(build udp_counts)
F=$(build tcp_flow)
cd "$TMP" || exit 1

# --- 1. scheduled faults ------------------------------------------------------
write_conf f.conf <<EOF
[simulation]
duration = 60s
[network]
latency = 1ms..5ms
[machine rcv]
command = exec $U recv 0.0.0.0 7400 300
[machine snd]
command = exec $U send rcv 7400 300
[machine srv]
command = exec $F server 0.0.0.0 7500
[machine cli]
command = exec $F client srv 7500
[machine idle]
command = sleep 3
[fault cut]
kind = partition
at = 0
duration = 300ms
sides = rcv | snd
[fault lossy]
kind = loss
at = 0
duration = 1500ms
rate = 50%
machines = snd, cli
[fault oneway]
kind = partition
at = 2s
duration = 500ms
machine = srv
one_way = true
[fault dup]
kind = duplicate
at = 2500ms
rate = 10%
EOF
"$DSIM" replay f.conf 1 --trace f1.gz --plan-out plan.json --output out >rep.out 2>&1 ||
    { cat rep.out >&2; tail -n +1 out/seed-1/*.std* >&2; fail "seed 1 failed"; }
for m in rcv snd srv cli; do
    [ "$(tail -n 1 "out/seed-1/$m.stdout")" = ok ] || fail "$m: $(cat "out/seed-1/$m.stdout")"
done
"$DSIM" trace f1.gz >f1.txt || fail "dsim trace failed"
for line in "0.000000000 - 0 fault cut: partition rcv | snd for 300000000ns" \
            "0.000000000 - 0 fault lossy: loss 50% on links of snd cli for 1500000000ns" \
            "0.000000000 - 0 net partition (fault cut) starts: rcv | snd" \
            "0.300000000 - 0 net partition (fault cut) heals: rcv | snd" \
            "0.000000000 - 0 net loss burst (fault lossy) starts: 50% on links of snd cli" \
            "1.500000000 - 0 net loss burst (fault lossy) ends: 50% on links of snd cli" \
            "2.000000000 - 0 fault oneway: partition srv -> rcv snd cli idle for 500000000ns" \
            "2.500000000 - 0 net partition (fault oneway) heals: srv -> rcv snd cli idle" \
            "2.500000000 - 0 fault dup: duplicate 10% on every link to the end"; do
    grep -qxF "$line" f1.txt || fail "no trace event: $line"
done
# UDP lines: TIME MACHINE THREAD net udp SRC SRCADDR > DST DSTADDR [dropped: WHY] LEN
awk '$4 == "net" && $5 == "udp" { split($1, t, "."); ns = t[1] * 1e9 + t[2] }
     $4 == "net" && $5 == "udp" && /dropped: partition/ { part++; if (ns >= 3e8) { print "cut after the heal: " $0; bad = 1 } }
     $4 == "net" && $5 == "udp" && /dropped: loss/ { loss++; if (ns >= 1.5e9) { print "lost after the burst: " $0; bad = 1 } }
     $4 == "net" && $5 == "udp" && !/dropped/ && ns < 3e8 && $6 != $9 { print "crossed the partition: " $0; bad = 1 }
     $4 == "net" && $5 != "udp" && /dropped/ { print "TCP dropped: " $0; bad = 1 }
     / retransmitted / { rtx++ }
     END { if (!part) { print "nothing dropped by the partition"; bad = 1 }
           if (!loss) { print "nothing dropped by the loss burst"; bad = 1 }
           if (!rtx) { print "no TCP retransmission in the loss burst"; bad = 1 }
           printf "%d cut, %d lost, %d retransmitted\n", part, loss, rtx > "/dev/stderr"
           exit bad }' f1.txt 2>counts.txt >&2 || fail "the trace does not show the faults as configured"
python3 - plan.json <<'PY' || fail "the recorded plan: $(cat plan.json)"
import json, sys
f = {x["name"]: x for x in json.load(open(sys.argv[1]))["faults"]}
assert list(f) == ["cut", "lossy", "oneway", "dup"], list(f)
assert f["cut"] == {"name": "cut", "kind": "partition", "at_ns": 0, "sides": [["rcv"], ["snd"]], "one_way": False,
                    "duration_ns": 300000000}, f["cut"]
assert f["lossy"]["rate_ppm"] == 500000 and f["lossy"]["machines"] == ["snd", "cli"], f["lossy"]
assert f["oneway"]["sides"] == [["srv"], ["rcv", "snd", "cli", "idle"]] and f["oneway"]["one_way"], f["oneway"]
assert f["dup"]["kind"] == "duplicate" and "machines" not in f["dup"] and "duration_ns" not in f["dup"], f["dup"]
PY
h=$(sed -n 's/^trace hash //p' rep.out)
hp=$("$DSIM" replay f.conf 1 --plan plan.json | sed -n 's/^trace hash //p')
[ -n "$h" ] && [ "$h" = "$hp" ] || fail "the recorded plan replays to $hp, the run had $h"
echo '{"faults": []}' >none.json
hn=$("$DSIM" replay f.conf 1 --plan none.json | sed -n 's/^trace hash //p')
[ -n "$hn" ] && [ "$hn" != "$h" ] || fail "without its faults seed 1 gave the same hash"
"$DSIM" verify f.conf --seed 1 --runs 2 >verify.out || { cat verify.out >&2; fail "dsim verify: not deterministic"; }
[ "$(tail -n 1 verify.out)" = "$h" ] || fail "dsim verify gave $(tail -n 1 verify.out), the replay $h"
note "scheduled: $(cat counts.txt); seed 1 replays to $h, by its plan too"

# --- 2. [chaos] ---------------------------------------------------------------
write_conf c.conf <<EOF
[simulation]
duration = 10s
[network]
latency = 1ms..5ms
[machine rcv]
command = exec $U recv 0.0.0.0 7400 300
[machine snd]
command = exec $U send rcv 7400 300
[machine idle]
command = sleep 2
[chaos]
partition = 300ms
partition_for = 50ms..200ms
partition_one_way = true
loss = 500ms
loss_for = 100ms..300ms
loss_rate = 20%..80%
duplicate = 500ms
duplicate_rate = 30%
EOF
h1=$(fault_plan c.conf 1); cp p1.json p1a.json; h1b=$(fault_plan c.conf 1); h2=$(fault_plan c.conf 2)
[ -n "$h1" ] && [ "$h1" = "$h1b" ] || fail "chaos: one seed gave two hashes: $h1 vs $h1b"
cmp -s p1.json p1a.json || fail "chaos: one seed gave two plans"
[ -n "$h2" ] && [ "$h2" != "$h1" ] || fail "chaos: seeds 1 and 2 gave one hash"
! cmp -s p1.json p2.json || fail "chaos: seeds 1 and 2 drew the same faults"
python3 - p1.json p2.json <<'PY' || fail "chaos: the plans do not hold the drawn network faults"
import json, sys
for path in sys.argv[1:]:
    f = json.load(open(path))["faults"]
    kinds = {x["kind"] for x in f}
    assert kinds == {"partition", "loss", "duplicate"}, (path, kinds)
    for x in f:
        assert x["name"].startswith("chaos-" + x["kind"] + "-"), x
        assert 0 < x["duration_ns"], x
        if x["kind"] == "partition":
            a, b = x["sides"]
            assert a and b and not set(a) & set(b) and set(a) | set(b) == {"rcv", "snd", "idle"}, x
            assert 50000000 <= x["duration_ns"] <= 200000000, x
        elif x["kind"] == "loss":
            assert 200000 <= x["rate_ppm"] <= 800000 and x.get("machines", ["rcv"])[0] in ("rcv", "snd", "idle"), x
        else:
            assert x["rate_ppm"] == 300000, x
PY
"$DSIM" replay c.conf 1 --trace c1.gz >/dev/null && "$DSIM" trace c1.gz >c1.txt || fail "chaos: no trace of seed 1"
nfired=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["faults"]))' p1.json)
[ "$(grep -cE '^[0-9.]+ - 0 fault chaos-' c1.txt)" = "$nfired" ] || fail "chaos: not every fault of the plan fired in the trace"
grep -qE ' - 0 net partition \(fault chaos-partition-1\) starts: ' c1.txt || fail "chaos: the first partition did not start"
sed -i 's/^\[chaos\]$/[chaos]\nswarm = true/' c.conf
kinds=$(swarm_varies c.conf) || exit 1
note "chaos: seed 1 $nfired faults, $h1; seed 2 $h2; fault kinds per seed under swarm:$kinds"

# --- 3. errors ----------------------------------------------------------------
printf '[machine a]\ncommand = true\n[machine b]\ncommand = true\n[fault f]\nkind = partition\nat = 1s\nsides = a | nope\n' >bad.conf
"$DSIM" run bad.conf --seeds 1 2>err.txt; [ $? = 2 ] || fail "a partition naming no machine was not refused"
grep -qx 'bad.conf:5: fault "f" names no machine of this file: "nope"' err.txt || fail "error: $(cat err.txt)"
echo '{"faults": [{"name": "x", "kind": "partition", "at_ns": 1, "sides": [["rcv"], ["nope"]]}]}' >badplan.json
"$DSIM" run c.conf --seeds 1 --plan badplan.json 2>err.txt; [ $? = 2 ] || fail "a bad plan was not refused"
grep -q 'badplan.json: fault 1: a partition needs sides' err.txt || fail "bad plan: $(cat err.txt)"
