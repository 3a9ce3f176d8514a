#!/bin/bash
# The rough edges of a sweep, each fixed and held:
#  - SIGTERM during the search for a passing seed to compare with: a sane
#    summary (it once said "nor seeds 18446744073709551614-2") and no
#    process of dsim's left;
#  - the search is bounded in time and says when it gave up;
#  - --results is written a whole line at a time: a SIGKILL leaves whole lines;
#  - dsim trace --syscall disk matches the disk: events, as disk: does;
#  - a report names the files a crash tore on a machine that then failed,
#    with the hint for CPython's __pycache__.
. "$(dirname "$0")/lib.sh"
cd "$TMP" || exit 1

# --- a slow failing sweep: each seed computes ~1 s, then fails -----------
write_conf slow.conf <<'CONF'
[machine app]
command = i=0; while [ $i -lt 1200000 ]; do i=$((i+1)); done; echo "counted $i" >&2; exit 1
CONF
start=$(date +%s%N)
timeout -k 5 120 "$DSIM" run slow.conf --seeds 1 >slow.out 2>&1
took=$(( ($(date +%s%N) - start) / 1000000 ))
line=$(grep '^  no passing seed to compare with' slow.out)
[ -n "$line" ] || { cat slow.out; fail "no 'no passing seed' line"; }
echo "$line" | grep -Eq 'none of the sweep passed, nor seeds? 2(-[2-5])? \(the search gave up after [0-9.]+s' ||
    { cat slow.out; fail "the search did not give up early: $line"; }
note "a failing seed of about 1 s: the whole command took ${took} ms; $line"

# --- SIGTERM during that search ------------------------------------------
# The search is running once a second run directory has appeared (each
# run's has a name of its own; the first seed's may be gone by then on a
# busy host): wait for that rather than a time, which a fast host outruns.
mkdir -p "$TMP/term-tmp"
TMPDIR="$TMP/term-tmp" setsid "$DSIM" run slow.conf --seeds 1 >term.out 2>term.err &
pid=$!
seen=
for _ in $(seq 1200); do
    seen=$(printf '%s\n' $seen "$TMP"/term-tmp/dsim-runs/dsim-run.* | grep -v '\*$' | sort -u)
    [ "$(printf '%s\n' $seen | grep -c .)" -ge 2 ] && break
    sleep 0.05
done
sid=$(ps -o sid= -p $pid | tr -d ' ')
kill -TERM $pid
wait $pid; rc=$?
[ $rc = 143 ] || { cat term.out term.err; fail "SIGTERM: exit $rc, want 143"; }
grep -q '18446744' term.out term.err && { cat term.out term.err; fail "an unsigned underflow in the summary"; }
grep -q 'nor seed' term.out && { cat term.out; fail "an interrupted search claimed seeds it did not run"; }
grep -q '^dsim: interrupted: 1 of 1 seeds done (1 failed)' term.err || { cat term.err; fail "no sane summary after SIGTERM"; }
sleep 0.5
left=$(ps -o pid=,args= -s "$sid" 2>/dev/null)
[ -z "$left" ] || fail "processes of the interrupted sweep survive: $left"

# --- SIGKILL mid-sweep leaves whole --results lines ----------------------
# Each failing seed's line holds a report of about 8 KiB (its stderr).
write_conf big.conf <<'CONF'
[machine app]
command = for i in 1 2 3 4 5 6 7 8 9 10; do head -c 800 /dev/zero | tr '\0' y >&2; echo >&2; done; i=0; while [ $i -lt 30000 ]; do i=$((i+1)); done; exit 1
CONF
"$DSIM" run big.conf --seeds 1-400 -j 2 --keep-going --results big.jsonl >/dev/null 2>&1 &
pid=$!
for _ in $(seq 300); do [ "$(grep -c . big.jsonl 2>/dev/null)" -ge 3 ] && break; sleep 0.05; done
kill -KILL $pid
wait $pid 2>/dev/null
n=$(grep -c . big.jsonl)
[ "$n" -ge 3 ] || fail "the sweep wrote $n lines before the kill"
[ "$(tail -c 1 big.jsonl | od -An -c | tr -d ' ')" = '\n' ] || fail "the results end in a torn line"
python3 - big.jsonl <<'PY' || fail "a --results line is not whole"
import json, sys
for line in open(sys.argv[1]):
    r = json.loads(line)
    assert len(r["report"]) > 4096, len(r["report"])
PY
note "SIGKILL after $n whole lines of more than 4 KiB"

# --- trace --syscall disk, and a torn file in a report -------------------
write_conf torn.conf <<'CONF'
[simulation]
duration = 20s
[machine py]
command = if [ -e /var/tmp/__pycache__/m.pyc ]; then [ "$(wc -c </var/tmp/__pycache__/m.pyc)" = 4096 ] || { echo "marshal data too short" >&2; exit 1; }; fi; mkdir -p /var/tmp/__pycache__; head -c 4096 /dev/zero >/var/tmp/__pycache__/m.pyc; sleep 5
[fault crash]
kind = restart
at = 2s
machine = py
duration = 100ms
CONF
timeout -k 5 120 "$DSIM" run torn.conf --seeds 1-12 -j 2 --keep-going >torn.out 2>&1
seed=$(sed -n 's/^seed \([0-9]*\) FAILED: machine py exited with status 1$/\1/p' torn.out | head -n 1)
[ -n "$seed" ] || { cat torn.out; fail "no seed of 1-12 tore the file"; }
sed -n "/^seed $seed FAILED/,/^seed [0-9]* FAILED\|^where/p" torn.out >torn1.out
grep -Eq '^    /var/tmp/__pycache__/m.pyc (torn at [0-9]+|lost|rolled back) \(not durable\)$' torn1.out ||
    { cat torn1.out; fail "the report does not name the torn file"; }
grep -q '^  hint: CPython writes __pycache__/\*.pyc without fsync.*PYTHONDONTWRITEBYTECODE=1' torn1.out ||
    { cat torn1.out; fail "no hint for __pycache__"; }
timeout -k 5 60 "$DSIM" replay torn.conf "$seed" --trace t.gz >/dev/null 2>&1
"$DSIM" trace t.gz --syscall disk: >colon.txt
"$DSIM" trace t.gz --syscall disk >plain.txt
[ -s colon.txt ] && grep -q 'disk: /var/tmp/__pycache__/m.pyc' colon.txt || fail "no disk: events in the trace"
cmp -s colon.txt plain.txt || fail "--syscall disk and --syscall disk: differ"
"$DSIM" trace t.gz --syscall fault | grep -q ' fault ' || fail "--syscall fault matches nothing"
"$DSIM" trace t.gz --syscall dis | grep -q . && fail "--syscall dis matched disk: events"
note "seed $seed tore m.pyc; $(wc -l <plain.txt) disk events"

# --- --shard is 1-based: 1/3 .. 3/3 run, 0/3 and 4/3 are refused ---------
write_conf ok.conf <<'CONF'
[machine m]
command = true
CONF
for bad in 0/3 4/3; do
    "$DSIM" run ok.conf --seeds 1-9 --shard $bad >/dev/null 2>bad.err; rc=$?
    [ $rc = 2 ] && grep -q "bad --shard $bad (use I/N with 1 <= I <= N" bad.err || { cat bad.err; fail "--shard $bad: exit $rc"; }
done
for i in 1 2 3; do
    timeout -k 5 60 "$DSIM" run ok.conf --seeds 1-9 --shard $i/3 --results s$i.jsonl >/dev/null 2>&1 || fail "--shard $i/3 failed"
    grep -q "\"shard\":\"$i/3\"" s$i.jsonl || fail "shard $i/3's results do not name it"
done
[ "$(cat s?.jsonl | sed 's/^{"seed":\([0-9]*\),.*/\1/' | sort -n | tr '\n' ' ')" = "1 2 3 4 5 6 7 8 9 " ] || fail "shards 1-3/3 miss or repeat a seed"
