#!/bin/bash
# [simulation] warm_start = network: the point is the first call that makes
# a socket of the simulated network, in any machine. A 3-machine cluster
# whose machines each first run warm_phases (random bytes in an order the
# scheduler draws), then tcp_epoll_echo (a server and two clients):
#  - the trace marks the point just before the first socket() call;
#  - seeds 1-3 print the same start-up (warm_phases' lines in every
#    machine), and cold they do not;
#  - the network's draws after the point are the seed's: the seeds' hashes
#    differ; a seed of a sweep replays to the sweep's hash.
# No real network: see netns.sh.
. "$(dirname "$0")/netns.sh"
. "$(dirname "$0")/lib.sh"
net_dsim_wrapper 120
cd "$TMP" || exit 1
cp "$(build warm_phases)" "$(build tcp_epoll_echo)" .
conf() {
    cat >"$2" <<CONF
[simulation]
duration = 20s
$1
[network]
latency = 1ms..20ms
[machine srv]
command = ./warm_phases | head -n 4; exec ./tcp_epoll_echo server 0.0.0.0 7200 2
[machine c1]
command = ./warm_phases | head -n 4; exec ./tcp_epoll_echo client srv 7200 1 20
[machine c2]
command = ./warm_phases | head -n 4; exec ./tcp_epoll_echo client srv 7200 2 20
CONF
}
conf 'warm_start = network' warm.conf
conf '' cold.conf
for c in warm cold; do
    "$DSIM" run $c.conf --seeds 1-3 -j 2 --output "out-$c" --results "$c.jsonl" >"$c.log" 2>&1 ||
        { cat "$c.log" >&2; fail "$c: a seed failed"; }
    for s in 1 2 3; do
        for m in srv c1 c2; do head -n 4 "out-$c/seed-$s/$m.stdout"; done >"$c-$s.startup"
        [ "$(tail -n 1 "out-$c/seed-$s/c1.stdout")" = ok ] || fail "$c seed $s: client c1 did not end in ok"
    done
done
cmp -s warm-1.startup warm-2.startup && cmp -s warm-1.startup warm-3.startup ||
    { diff warm-1.startup warm-2.startup >&2; fail "warm start: the seeds' start-ups differ"; }
! { cmp -s cold-1.startup cold-2.startup && cmp -s cold-1.startup cold-3.startup; } ||
    fail "cold: seeds 1-3 printed the same start-up (the check above would prove nothing)"
hashes=$(python3 -c 'import json,sys; print(len({json.loads(l)["hash"] for l in open(sys.argv[1])}))' warm.jsonl)
[ "$hashes" -gt 1 ] || fail "warm start: seeds 1-3 gave one hash: the network's draws after the point ignore the seed"
swept=$(python3 -c 'import json,sys
for l in open(sys.argv[1]):
    r = json.loads(l)
    if r["seed"] == 3: print(r["hash"])' warm.jsonl)
"$DSIM" replay warm.conf 3 --trace t3.gz >replay.out 2>&1 || { cat replay.out >&2; fail "replay of seed 3 failed"; }
grep -q "trace hash $swept" replay.out || { cat replay.out >&2; fail "replay of seed 3: not the sweep's hash $swept"; }
"$DSIM" trace t3.gz >t3.txt || fail "dsim trace t3.gz"
[ "$(grep -c ' warm start: seed 3 from here (start-up seed 0)$' t3.txt)" = 1 ] || fail "the trace does not mark one warm start"
after=$(grep -A1 ' warm start: ' t3.txt | tail -n 1)
grep -Eq ' socket\((2|10), ' <<<"$after" || fail "the event after the warm start is not the first socket call: $after"
grep -B100000 ' warm start: ' t3.txt | grep -Eq ' socket\((2|10), ' && fail "a socket call came before the warm start"
note "seeds 1-3: one start-up, $hashes hashes; the point: $(grep ' warm start: ' t3.txt | cut -d' ' -f1)s, before: $after"

# [chaos] network faults begin at the point too: with loss bursts every
# 10 ms on average, none starts before it, and some after it.
conf $'warm_start = network\n[chaos]\nloss = 10ms\nloss_for = 5ms..10ms\nloss_rate = 10%..30%' chaos.conf
"$DSIM" replay chaos.conf 1 --trace tc.gz >chaos.out 2>&1 || { cat chaos.out >&2; fail "chaos.conf seed 1 failed"; }
"$DSIM" trace tc.gz >tc.txt || fail "dsim trace tc.gz"
grep -B100000 ' warm start: ' tc.txt | grep -q 'burst (fault chaos-' && fail "a chaos loss burst started before the warm start"
n=$(grep -c 'net loss burst (fault chaos-loss-[0-9]*) starts' tc.txt)
[ "$n" -gt 0 ] || fail "no chaos loss burst after the warm start"
note "chaos loss bursts: $n, all after the point"
