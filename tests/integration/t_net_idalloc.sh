#!/bin/bash
# The judge's scenario: a race in an asyncio (CPython) id allocator, found,
# replayed and fixed. Machine alloc runs `idalloc.py server --buggy` (reads
# its counter, awaits, writes it back: two requests in flight can get the
# same id); c1 and c2 start 100 ms and 110 ms in and ask for 5 ids each over
# TCP, across a network with 1..50 ms latency; [check] runs idalloc_check.py
# on their outputs. A sweep of seeds 1-100 fails at some seed with the check
# failing on a duplicate id; `dsim replay` of that seed gives the sweep's
# trace hash twice, and the same duplicate; the --fixed server (an
# asyncio.Lock) passes seeds 1-20.
# No real network: see netns.sh.
. "$(dirname "$0")/netns.sh"
. "$(dirname "$0")/lib.sh"
net_dsim_wrapper 120

# The conf's directory holds the programs and the confs, and nothing is
# written into it: Python lists its script's directory, so what is in it is
# part of what a seed sees (and of its hash).
D=$TMP/ia
mkdir -p "$D"
cp "$PROGS/idalloc.py" "$PROGS/idalloc_check.py" "$PROGS/netcheck.py" "$D/"
conf() {    # conf --buggy|--fixed
    cat <<EOF
[simulation]
duration = 60s
[network]
latency = 1ms..50ms
[machine alloc]
command = exec python3 idalloc.py server 7000 $1 --clients 2
[machine c1]
start = 100ms
command = exec python3 idalloc.py client alloc 7000 c1 5
[machine c2]
start = 110ms
command = exec python3 idalloc.py client alloc 7000 c2 5
[check]
command = python3 "\$DSIM_CONFIG_DIR/idalloc_check.py" c1.stdout c2.stdout
EOF
}
conf --buggy >"$D/buggy.conf"
conf --fixed >"$D/fixed.conf"

# The buggy server: the sweep stops at a seed whose check finds a duplicate.
"$DSIM" run "$D/buggy.conf" --seeds 1-100 -j 2 >"$TMP/run.out" 2>"$TMP/run.err"; rc=$?
[ "$rc" = 1 ] || { cat "$TMP/run.out" "$TMP/run.err" >&2; fail "buggy: seeds 1-100: exit $rc, expected 1 (a failing seed)"; }
line=$(grep -E '^seed [0-9]+ FAILED: ' "$TMP/run.out" | head -n 1)
seed=$(sed -E 's/^seed ([0-9]+) FAILED: .*/\1/' <<<"$line")
[ -n "$seed" ] || { cat "$TMP/run.out" >&2; fail "buggy: no failing seed reported"; }
[ "$line" = "seed $seed FAILED: the check command failed (exit status 1)" ] || fail "buggy: seed $seed failed otherwise: $line"
grep -q '^ *duplicate id [0-9]* (given to c[12] and c[12])$' "$TMP/run.out" || fail "buggy: the check did not report a duplicate id"
hash=$(grep -A1 -x "$line" "$TMP/run.out" | sed -n 's/.*, trace hash \([0-9a-f]*\)$/\1/p')
[ -n "$hash" ] || fail "buggy: no trace hash in seed $seed's report"
grep -qx "  replay: dsim replay $D/buggy.conf $seed" "$TMP/run.out" || fail "buggy: the report does not say how to replay seed $seed"

# Replayed twice: the same failure, hash and duplicate.
for i in 1 2; do
    "$DSIM" replay "$D/buggy.conf" "$seed" --output "$TMP/rep$i" >"$TMP/rep$i.out" 2>&1; rc=$?
    [ "$rc" = 1 ] || { cat "$TMP/rep$i.out" >&2; fail "replay $i of seed $seed: exit $rc, expected 1"; }
    grep -qx "$line" "$TMP/rep$i.out" || fail "replay $i of seed $seed: not the same failure: $(grep FAILED "$TMP/rep$i.out")"
    h=$(sed -n 's/^trace hash //p' "$TMP/rep$i.out")
    [ "$h" = "$hash" ] || fail "replay $i of seed $seed: hash $h, the sweep had $hash"
    python3 "$D/idalloc_check.py" "$TMP/rep$i/seed-$seed/c1.stdout" "$TMP/rep$i/seed-$seed/c2.stdout" >"$TMP/check$i.out"
    [ $? = 1 ] || fail "replay $i of seed $seed: the clients' outputs hold no duplicate: $(cat "$TMP/check$i.out")"
done
cmp -s "$TMP/check1.out" "$TMP/check2.out" || fail "the two replays handed out different ids"
grep '^duplicate id' "$TMP/check1.out" | sed 's/^/    /' | grep -qxFf - "$TMP/run.out" ||
    fail "the replay's duplicate is not the sweep's (in its report)"
note "buggy: seed $seed fails ($(head -n 1 "$TMP/check1.out")) and replays to $hash twice"

# The fixed server passes.
"$DSIM" run "$D/fixed.conf" --seeds 1-20 -j 2 >"$TMP/fixed.out" 2>&1 ||
    { cat "$TMP/fixed.out" >&2; fail "fixed: a seed of 1-20 failed"; }
grep -qx "dsim: all 20 seeds passed" "$TMP/fixed.out" || fail "fixed: $(tail -n 1 "$TMP/fixed.out")"
[ "$(grep -cx 'ok: 10 ids, all distinct' "$TMP/fixed.out")" = 20 ] || fail "fixed: the check did not pass 20 times"
note "fixed: seeds 1-20 pass"
