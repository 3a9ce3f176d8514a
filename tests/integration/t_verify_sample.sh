#!/bin/bash
# `dsim run --verify-sample`: a sweep runs a sample of its seeds a second
# time and fails, with an explanation, when one does not replay.
#
# Deterministic cluster (two machines: threads under a mutex, and a host file
# that does not change): --verify-sample 25% of seeds 1-20 runs exactly 5
# seeds twice, each "replayed" with replay_hash = hash in --results, exit 0;
# the sample is the same with -j 1 and -j 2 (results equal but wall time),
# a count (3) gives 3; two shards merged equal the unsharded sweep, sample
# included; JUnit has the sample's testcase; a checkpointed sweep killed
# with SIGKILL and resumed gives the same results, runs no recorded seed (nor
# second run) again, and a checkpoint of another sample is refused.
# Nondeterministic: the host file bumped by the [check]: every sampled seed
# fails as "nondeterministic", the report names the file and where two runs
# parted, exit 3; results and JUnit say so. Twice.
. "$(dirname "$0")/lib.sh"
strip() { sed 's/,"wall_ms":[0-9]*//' "$1"; }
locked=$(build locked_counter) || exit 1
hc=$(build host_counter) || exit 1
scratch=$(mktemp -d "$TMP/scratch.XXXXXX")
echo 5 >"$scratch/fixed"
echo 0 >"$scratch/count"

write_conf "$TMP/det.conf" <<CONF
[machine a]
command = '$locked' 2 10

[machine b]
command = '$hc' '$scratch/fixed'

[check]
command = echo \$DSIM_SEED >> '$TMP/ran.log'
CONF

sweep() {   # sweep NAME ARGS...: the deterministic sweep; its output in $TMP/NAME.out
    local name=$1; shift
    timeout -k 5 300 "$DSIM" run "$TMP/det.conf" --seeds 1-20 "$@" >"$TMP/$name.out" 2>&1
}

sweep j2 -j 2 --verify-sample 25% --results "$TMP/j2.jsonl" --junit "$TMP/j2.xml" ||
    { cat "$TMP/j2.out" >&2; fail "deterministic sweep with --verify-sample 25%: exit $?"; }
grep -qx 'dsim: verify sample: 5 seeds run twice, each replayed to the same trace hash' "$TMP/j2.out" &&
    grep -qx 'dsim: all 20 seeds passed' "$TMP/j2.out" || { cat "$TMP/j2.out" >&2; fail "no sample summary or pass line"; }
[ "$(grep -c . "$TMP/j2.jsonl")" = 20 ] || fail "expected 20 results"
[ "$(grep -c '"replayed":true' "$TMP/j2.jsonl")" = 5 ] && ! grep -q '"replayed":false' "$TMP/j2.jsonl" ||
    { cat "$TMP/j2.jsonl" >&2; fail "expected 5 replayed seeds in the results"; }
while read -r line; do
    h=$(sed -n 's/.*"hash":"\([0-9a-f]*\)".*/\1/p' <<<"$line")
    grep -q "\"replay_hash\":\"$h\"" <<<"$line" || fail "a replayed seed's replay_hash is not its hash: $line"
done < <(grep '"replayed"' "$TMP/j2.jsonl")
sampled=$(grep '"replayed"' "$TMP/j2.jsonl" | sed 's/^{"seed":\([0-9]*\),.*/\1/' | tr '\n' ' ')
grep -q 'name="verify sample: 5 seeds run twice, 0 did not replay"/>' "$TMP/j2.xml" || { cat "$TMP/j2.xml" >&2; fail "JUnit: no sample testcase"; }
note "sampled seeds: $sampled"

sweep j1 -j 1 --verify-sample 25% --results "$TMP/j1.jsonl" || fail "the -j 1 sweep failed"
diff <(strip "$TMP/j1.jsonl") <(strip "$TMP/j2.jsonl") >&2 || fail "-j 1 and -j 2 give other results or samples"
sweep count -j 2 --verify-sample 3 --results "$TMP/count.jsonl" || fail "--verify-sample 3 failed"
[ "$(grep -c '"replayed":true' "$TMP/count.jsonl")" = 3 ] || fail "--verify-sample 3 did not run 3 seeds twice"

for i in 1 2; do
    sweep shard$i -j 2 --verify-sample 25% --shard $i/2 --results "$TMP/shard$i.jsonl" || fail "shard $i/2 failed"
done
"$DSIM" merge --results "$TMP/merged.jsonl" "$TMP/shard1.jsonl" "$TMP/shard2.jsonl" >"$TMP/merge.out" ||
    { cat "$TMP/merge.out" >&2; fail "merge failed"; }
grep -qx 'dsim: verify sample: 5 seeds run twice, each replayed to the same trace hash' "$TMP/merge.out" ||
    { cat "$TMP/merge.out" >&2; fail "merge: no sample summary"; }
diff <(strip "$TMP/j2.jsonl") <(strip "$TMP/merged.jsonl") >&2 || fail "two shards merged differ from the unsharded sweep"

# Checkpoint: kill -9 partway (more seeds, so that it lands in the sweep).
timeout -k 5 300 "$DSIM" run "$TMP/det.conf" --seeds 1-120 -j 2 --verify-sample 10% --results "$TMP/full.jsonl" \
    >/dev/null 2>&1 || fail "the uninterrupted 120-seed sweep failed"
rm -f "$TMP/ran.log"
"$DSIM" run "$TMP/det.conf" --seeds 1-120 -j 2 --verify-sample 10% --checkpoint "$TMP/ck" >/dev/null 2>&1 &
pid=$!
for _ in $(seq 200); do [ "$(grep -c . "$TMP/ck" 2>/dev/null)" -gt 30 ] && break; sleep 0.05; done
kill -9 $pid; wait $pid 2>/dev/null
done_before=$(( $(grep -c . "$TMP/ck") - 1 ))
[ "$done_before" -gt 0 ] && [ "$done_before" -lt 120 ] || fail "the kill landed outside the sweep ($done_before seeds recorded)"
recorded=$(tail -n +2 "$TMP/ck" | sed -n 's/^{"seed":\([0-9]*\),.*/\1/p')
cp "$TMP/ran.log" "$TMP/ran.before"
timeout -k 5 300 "$DSIM" run "$TMP/det.conf" --seeds 1-120 -j 2 --verify-sample 10% --checkpoint "$TMP/ck" \
    --results "$TMP/resumed.jsonl" >"$TMP/resumed.out" 2>&1 || { cat "$TMP/resumed.out" >&2; fail "the resumed sweep failed"; }
diff <(strip "$TMP/full.jsonl") <(strip "$TMP/resumed.jsonl") >&2 || fail "resumed results differ from an uninterrupted sweep"
grep -qx 'dsim: verify sample: 12 seeds run twice, each replayed to the same trace hash' "$TMP/resumed.out" ||
    { cat "$TMP/resumed.out" >&2; fail "resumed sweep: not 12 seeds run twice"; }
for s in $recorded; do
    before=$(grep -cx "$s" "$TMP/ran.before") all=$(grep -cx "$s" "$TMP/ran.log")
    [ "$before" = "$all" ] || fail "seed $s was recorded before the kill but ran again"
done
timeout -k 5 60 "$DSIM" run "$TMP/det.conf" --seeds 1-120 -j 2 --verify-sample 20% --checkpoint "$TMP/ck" >/dev/null 2>&1
[ $? = 2 ] || fail "a checkpoint of another sample was accepted"
note "checkpoint: killed after $done_before of 120 seeds, resumed to the same results"

# Nondeterministic: the [check] bumps the file the machine reads (by a
# rename: with -j 2 a machine of the other worker may be reading it).
write_conf "$TMP/bump.conf" <<CONF
[machine a]
command = '$locked' 2 10

[machine b]
command = '$hc' '$scratch/count'

[check]
command = n=\$(cat '$scratch/count'); echo \$((n + 1)) >'$scratch/count.'\$\$ && mv '$scratch/count.'\$\$ '$scratch/count'
CONF
bad() { grep -q "\"seed\":$1,.*\"outcome\":\"nondeterministic\",\"reason\":\"does not replay: " "$2"; }
for round in 1 2; do
    out=$TMP/bump$round.out
    timeout -k 5 300 "$DSIM" run "$TMP/bump.conf" --seeds 1-8 -j 2 --verify-sample 2 --results "$TMP/bump$round.jsonl" \
        --junit "$TMP/bump$round.xml" >"$out" 2>&1; rc=$?
    [ "$rc" = 3 ] || { cat "$out" >&2; fail "round $round: a sweep whose sample does not replay exited $rc, not 3"; }
    s=$(sed -n 's/^seed \([0-9]*\) FAILED: does not replay: the sweep.s run had trace hash [0-9a-f]\{32\}, a re-run [0-9a-f]\{32\}$/\1/p' "$out" | head -n 1)
    [ -n "$s" ] || { cat "$out" >&2; fail "round $round: no 'seed S FAILED: does not replay'"; }
    grep -qx "  replay: dsim verify $TMP/bump.conf --seed $s --runs 5" "$out" || { cat "$out" >&2; fail "round $round: no verify command to replay with"; }
    grep -qE '^  where runs [0-9]+ and [0-9]+ parted: at their event [0-9]+ ' "$out" &&
        grep -qE "^      machine b thread [0-9]+ read $scratch/count\$" "$out" &&
        grep -qE '^    stack of machine b thread [0-9]+ in run [0-9]+:$' "$out" ||
        { cat "$out" >&2; fail "round $round: the report does not say where runs parted and what they read"; }
    grep -qE "^failed at seed $s \([0-9]+ seeds? passed first\)\$" "$out" || { cat "$out" >&2; fail "round $round: no 'failed at seed $s'"; }
    grep -qE '^dsim: verify sample: 1 of 1 seeds run twice did not replay to the same trace hash$' "$out" ||
        { cat "$out" >&2; fail "round $round: no sample summary"; }
    bad "$s" "$TMP/bump$round.jsonl" && grep "\"seed\":$s," "$TMP/bump$round.jsonl" | grep -q '"replayed":false' ||
        { cat "$TMP/bump$round.jsonl" >&2; fail "round $round: the results do not say seed $s did not replay"; }
    grep -q "<failure message=\"does not replay: [^\"]*\" type=\"nondeterministic\">" "$TMP/bump$round.xml" &&
        grep -q 'name="verify sample: 1 seeds run twice, 1 did not replay">' "$TMP/bump$round.xml" ||
        { cat "$TMP/bump$round.xml" >&2; fail "round $round: JUnit does not show the seed that did not replay"; }
    note "round $round: seed $s did not replay"
done

timeout -k 5 30 "$DSIM" run "$TMP/det.conf" --seeds 1-3 --verify-sample 5x >/dev/null 2>&1
[ $? = 2 ] || fail "a bad --verify-sample was accepted"
note "ok"
