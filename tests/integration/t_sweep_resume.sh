#!/bin/bash
# Long sweeps: a worker killed mid-sweep fails its seed, and the others run;
# a checkpointed sweep killed with SIGKILL and rerun gives the
# same results as an uninterrupted one and reruns no recorded seed; three
# shards merged equal the unsharded sweep seed for seed (also with the shard
# taken from CI variables), and the merge prints the failure reports; JUnit
# XML is valid and carries the replay line.
. "$(dirname "$0")/lib.sh"
strip() { sed 's/,"wall_ms":[0-9]*//' "$1"; }

# --- checkpoint: kill -9 partway, resume --------------------------------
prog=$(build locked_counter)
write_conf "$TMP/ok.conf" <<CONF
[machine m]
command = $prog 2 20
[check]
command = echo \$DSIM_SEED >> $TMP/ran.log
CONF
timeout -k 5 300 "$DSIM" run "$TMP/ok.conf" --seeds 1-300 -j 2 --results "$TMP/full.jsonl" >/dev/null ||
    fail "uninterrupted sweep failed"
rm -f "$TMP/ran.log"
"$DSIM" run "$TMP/ok.conf" --seeds 1-300 -j 2 --checkpoint "$TMP/ck" --results "$TMP/r.jsonl" >/dev/null &
pid=$!
for _ in $(seq 100); do [ "$(grep -c . "$TMP/ck" 2>/dev/null)" -gt 40 ] && break; sleep 0.05; done
kill -9 $pid; wait $pid 2>/dev/null
done_before=$(( $(grep -c . "$TMP/ck") - 1 ))
[ "$done_before" -gt 0 ] && [ "$done_before" -lt 300 ] || fail "kill landed outside the sweep ($done_before seeds recorded)"
recorded=$(tail -n +2 "$TMP/ck" | sed -n 's/.*"seed":\([0-9]*\),.*/\1/p' | sort -n)
timeout -k 5 300 "$DSIM" run "$TMP/ok.conf" --seeds 1-300 -j 2 --checkpoint "$TMP/ck" --results "$TMP/r.jsonl" >"$TMP/resume.out" ||
    { cat "$TMP/resume.out"; fail "resumed sweep failed"; }
diff <(strip "$TMP/full.jsonl") <(strip "$TMP/r.jsonl") >&2 || fail "resumed results differ from an uninterrupted sweep"
for s in $recorded; do
    [ "$(grep -cx "$s" "$TMP/ran.log")" = 1 ] || fail "seed $s was recorded before the kill but ran again"
done
[ "$(sort -un "$TMP/ran.log" | wc -l)" = 300 ] || fail "some seed never ran"
# Rerunning the finished sweep (a CI retry) runs nothing and gives the same
# results at once.
lines=$(wc -l <"$TMP/ran.log")
timeout -k 5 30 "$DSIM" run "$TMP/ok.conf" --seeds 1-300 -j 2 --checkpoint "$TMP/ck" --results "$TMP/again.jsonl" \
    >"$TMP/again.out" || fail "rerun of a finished checkpointed sweep failed or hung (exit $?)"
diff <(strip "$TMP/full.jsonl") <(strip "$TMP/again.jsonl") >&2 || fail "rerun of a finished sweep gave other results"
[ "$(wc -l <"$TMP/ran.log")" = "$lines" ] || fail "rerun of a finished sweep ran seeds again"
# A checkpoint of another sweep is refused.
timeout -k 5 60 "$DSIM" run "$TMP/ok.conf" --seeds 1-5 --checkpoint "$TMP/ck" >/dev/null 2>&1
[ $? = 2 ] || fail "a checkpoint of another sweep was accepted"
note "killed after $done_before of 300 seeds; resumed to the same results"

# --- a worker killed mid-sweep --------------------------------------------
# Its seed fails (the sweep must not look green without it), a new worker
# takes its place, and --keep-going still runs every seed. The kill must
# find the worker in a seed: one killed between seeds, waiting for its next
# job (on a busy host, while the parent writes the checkpoint), loses none,
# and the sweep rightly passes. So the seeds are longer here, and the kill
# waits for a worker with a live machine (a child not yet a zombie).
write_conf "$TMP/long.conf" <<CONF
[machine m]
command = $prog 2 200
CONF
"$DSIM" run "$TMP/long.conf" --seeds 1-400 -j 2 --keep-going --results "$TMP/wk.jsonl" --checkpoint "$TMP/wk.ckpt" \
    >"$TMP/wk.out" 2>&1 &
pid=$!
for ((t = 0; t < 200; t++)); do [ -f "$TMP/wk.jsonl" ] && [ "$(wc -l <"$TMP/wk.jsonl")" -gt 20 ] && break; sleep 0.05; done
killed=
for ((t = 0; t < 500 && !killed; t++)); do
    for worker in $(pgrep -P "$pid"); do
        ps -o stat= --ppid "$worker" | grep -qv '^Z' && kill -9 "$worker" && killed=$worker && break
    done
done
[ -n "$killed" ] || fail "no worker was found in a seed to kill"
wait "$pid"; rc=$?
[ "$rc" = 1 ] || { cat "$TMP/wk.out"; fail "a sweep with a killed worker exited $rc, not 1"; }
[ "$(wc -l <"$TMP/wk.jsonl")" = 400 ] || fail "a killed worker lost seeds: $(wc -l <"$TMP/wk.jsonl") results of 400"
[ "$(grep -c '"outcome":"internal"' "$TMP/wk.jsonl")" = 1 ] || fail "the killed worker's seed is not the one failure"
grep -q 'FAILED: the dsim worker running this seed died (signal 9)' "$TMP/wk.out" || fail "no report of the dead worker"
# Resumed from its checkpoint, the sweep runs that seed again (the death
# said nothing of the seed): every seed passes.
timeout -k 5 120 "$DSIM" run "$TMP/long.conf" --seeds 1-400 -j 2 --keep-going --results "$TMP/wk2.jsonl" \
    --checkpoint "$TMP/wk.ckpt" >"$TMP/wk2.out" 2>&1 || { cat "$TMP/wk2.out"; fail "the resumed sweep did not pass"; }
[ "$(grep -c '"outcome":"pass"' "$TMP/wk2.jsonl")" = 400 ] || fail "the dead worker's seed was not run again on resume"

# --- shards and merge ---------------------------------------------------
write_conf "$TMP/coin.conf" <<'CONF'
[machine coin]
command = b=$(od -An -tu1 -N1 /dev/urandom); [ $((b % 2)) -eq 0 ]
CONF
run() { timeout -k 5 120 "$DSIM" run "$TMP/coin.conf" --seeds 1-60 "$@" >/dev/null 2>&1; }
run --keep-going --results "$TMP/all.jsonl"
for i in 1 2 3; do run --keep-going --shard $i/3 --results "$TMP/k$i.jsonl"; done
"$DSIM" merge --keep-going --results "$TMP/merged.jsonl" --junit "$TMP/junit.xml" "$TMP"/k?.jsonl >"$TMP/merge.out"
[ $? = 1 ] || fail "merge of failing shards did not exit 1"
diff <(strip "$TMP/all.jsonl") <(strip "$TMP/merged.jsonl") >&2 || fail "merged --keep-going shards differ from the unsharded sweep"
# The merge prints each failing seed's report, as the sweep did.
nf=$(grep -c '"outcome":"exit"' "$TMP/all.jsonl")
[ "$(grep -c '^  last events' "$TMP/merge.out")" = "$nf" ] || fail "merge did not print $nf failure reports"
# Without --keep-going each shard stops at its own first failure; the merge
# cuts at the first failure overall, which equals the unsharded sweep.
run --results "$TMP/stop.jsonl"
for i in 1 2 3; do run --shard $i/3 --results "$TMP/s$i.jsonl"; done
"$DSIM" merge --results "$TMP/smerged.jsonl" "$TMP"/s?.jsonl >/dev/null
diff <(strip "$TMP/stop.jsonl") <(strip "$TMP/smerged.jsonl") >&2 || fail "merged shards differ from the unsharded sweep"
# A shard given twice is refused, not counted twice.
"$DSIM" merge "$TMP/k1.jsonl" "$TMP/k1.jsonl" "$TMP/k2.jsonl" >/dev/null 2>"$TMP/dup.err"
[ $? = 2 ] && grep -q 'is in the results twice' "$TMP/dup.err" || fail "merge counted a shard given twice"
# A missing shard is refused too: its seeds would pass unseen.
"$DSIM" merge "$TMP/k1.jsonl" "$TMP/k2.jsonl" >/dev/null 2>"$TMP/miss.err"
[ $? = 2 ] && grep -q 'no results of shard 3/3' "$TMP/miss.err" || fail "merge did not notice shard 3/3 missing"
# Shards of a sweep smaller than the shard count: the ones that had seeds
# must be there (2 of 5 for seeds 1-3 is one short), the empty ones need not.
for i in 1 2 3 4 5; do
    timeout -k 5 60 "$DSIM" run "$TMP/coin.conf" --seeds 1-3 --shard $i/5 --keep-going --results "$TMP/t$i.jsonl" >/dev/null 2>&1
done
"$DSIM" merge --keep-going "$TMP/t1.jsonl" "$TMP/t2.jsonl" >/dev/null 2>"$TMP/t.err"
[ $? = 2 ] && grep -q 'no results of shard 3/5' "$TMP/t.err" || fail "merge missed shard 3/5 of a 3-seed sweep"
"$DSIM" merge --keep-going "$TMP"/t[123].jsonl >/dev/null 2>&1
[ $? != 2 ] || fail "merge wanted the empty shards 4/5 and 5/5"
# An index without its count names no shard: refused, not run whole.
JOB_COMPLETION_INDEX=1 timeout -k 5 60 "$DSIM" run "$TMP/coin.conf" --seeds 1-6 >/dev/null 2>"$TMP/lone.err"
[ $? = 2 ] && grep -q 'JOB_COMPLETION_INDEX is set but DSIM_SHARDS is not' "$TMP/lone.err" ||
    fail "JOB_COMPLETION_INDEX without DSIM_SHARDS was not refused"
# The shard can come from the CI's variables (GitLab counts from 1).
CI_NODE_INDEX=2 CI_NODE_TOTAL=3 timeout -k 5 120 "$DSIM" run "$TMP/coin.conf" --seeds 1-60 --keep-going \
    --results "$TMP/ci.jsonl" >/dev/null 2>&1
diff <(strip "$TMP/k2.jsonl") <(strip "$TMP/ci.jsonl") >&2 || fail "CI_NODE_INDEX=2/3 is not shard 2/3"
python3 - "$TMP/junit.xml" "$TMP/merged.jsonl" <<'PY' || fail "bad JUnit XML"
import json, sys, xml.etree.ElementTree as ET
suite = ET.parse(sys.argv[1]).getroot().find("testsuite")
fails = [r for r in map(json.loads, open(sys.argv[2])) if r["outcome"] != "pass"]
cases = [c for c in suite.findall("testcase") if c.find("failure") is not None]
assert len(cases) == len(fails) == int(suite.get("failures")), (len(cases), len(fails))
assert all("replay: dsim replay" in c.find("failure").text for c in cases)
PY
