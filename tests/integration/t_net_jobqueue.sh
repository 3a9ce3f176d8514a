#!/bin/bash
# The judge's scenario: a job queue whose worker credits a job at a bank and
# then acknowledges it, under crashes and partitions (jobqueue.py, CPython).
# Machines queue (acks journaled with fsync, leases of 1 s), bank (prints
# each credit) and workers w1, w2; [chaos] crashes and partitions the queue
# and the workers (swarm: some seeds calm, some hostile) or, in part 3,
# partitions them every second on average; [check] runs
# jobqueue_check.py on the bank's output. The bug: a job credited whose ack
# is lost (its worker crashed, or was cut off from the queue, between the
# credit and the ack) is leased again and credited twice.
#  1. A sweep finds a failing seed: the check reports a job credited twice.
#  2. dsim shrink reduces the faults that fired to a plan of one or two
#     crashes or partitions, which replays the failure with one trace hash
#     (dsim verify --plan, twice) and the same duplicate credit.
#  3. With partitions alone, a failing seed shrinks to one or two partitions.
#  4. With the bank idempotent (a job is paid once), the failing seed and
#     its minimal plan pass, and so do seeds 1-4.
# No real network: see netns.sh.
. "$(dirname "$0")/netns.sh"
. "$(dirname "$0")/lib.sh"
net_dsim_wrapper 120

# The conf's directory holds the programs and the confs and is not written
# to: Python lists its script's directory, so its contents are part of
# what a seed sees.
D=$TMP/jq
mkdir -p "$D"
cp "$PROGS/jobqueue.py" "$PROGS/jobqueue_check.py" "$PROGS/netcheck.py" "$D/"
conf() {    # conf BANK_FLAGS CHAOS_LINES
    cat <<EOF
[simulation]
duration = 60s
[network]
latency = 1ms..10ms
[machine queue]
command = exec python3 jobqueue.py queue 7000 --jobs 20 --lease 1
daemon = true
[machine bank]
command = exec python3 jobqueue.py bank 7100 $1
daemon = true
[machine w1]
start = 100ms
command = exec python3 jobqueue.py worker w1 queue 7000 bank 7100
[machine w2]
start = 100ms
command = exec python3 jobqueue.py worker w2 queue 7000 bank 7100
[check]
command = python3 "\$DSIM_CONFIG_DIR/jobqueue_check.py" bank.stdout 20
[chaos]
machines = queue w1 w2
partition_for = 500ms..2s
crash_down = 500ms..1s
$2
EOF
}
CHAOS=$'swarm = true\ncrash = 3s\npartition = 3s'
conf "" "$CHAOS" >"$D/jq.conf"
conf "" "partition = 1s" >"$D/part.conf"
conf --idempotent "$CHAOS" >"$D/fixed.conf"
WANT="FAILED: the check command failed (exit status 1)"

# first_failure CONF SEEDS OUT: the first failing seed of a sweep.
first_failure() {
    "$DSIM" run "$1" --seeds "$2" -j 2 >"$3" 2>&1; local rc=$?
    [ "$rc" = 1 ] || { cat "$3" >&2; fail "$1: seeds $2: exit $rc, expected 1 (a failing seed)"; }
    local seed
    seed=$(sed -nE 's/^seed ([0-9]+) FAILED: .*/\1/p' "$3" | head -n 1)
    [ -n "$seed" ] || { cat "$3" >&2; fail "$1: no failing seed reported"; }
    grep -qx "seed $seed $WANT" "$3" || fail "$1: seed $seed failed otherwise: $(grep "^seed $seed" "$3")"
    grep -qE '^ *job [0-9]+ credited [2-9] times \(by w[12](, w[12])+\)$' "$3" || fail "$1: the check found no double credit"
    echo "$seed"
}

# shrink_to CONF SEED TAG: shrinks, checks the minimal plan replays the
# failure with one hash; prints "N faults -> K" and leaves TAG.json.
shrink_to() {
    local c=$1 s=$2 t=$3
    "$DSIM" shrink "$c" "$s" --plan-out "$TMP/$t.json" >"$TMP/$t.out" 2>&1 || { cat "$TMP/$t.out" >&2; fail "$t: shrink failed"; }
    local sum
    sum=$(grep -E '^shrank [0-9]+ events / [0-9]+ faults -> [0-9]+ events / [0-9]+ faults? in [0-9]+ candidate runs$' "$TMP/$t.out") ||
        { cat "$TMP/$t.out" >&2; fail "$t: no shrink summary"; }
    local n k
    n=$(sed -E 's/.* events \/ ([0-9]+) faults -> .*/\1/' <<<"$sum")
    k=$(sed -E 's/.* events \/ ([0-9]+) faults? in .*/\1/' <<<"$sum")
    [ "$(grep -c '^  removed chaos-' "$TMP/$t.out")" = $((n - k)) ] || fail "$t: shrink did not list the $((n - k)) removed faults"
    "$DSIM" verify "$c" --seed "$s" --runs 2 --plan "$TMP/$t.json" >"$TMP/$t.verify" ||
        { cat "$TMP/$t.verify" >&2; fail "$t: the minimal plan does not replay with one hash"; }
    grep -qE '^run [12]: [0-9a-f]+ check$' "$TMP/$t.verify" || fail "$t: the minimal plan does not fail the check: $(cat "$TMP/$t.verify")"
    "$DSIM" replay "$c" "$s" --plan "$TMP/$t.json" >"$TMP/$t.replay" 2>&1
    grep -qx "seed $s $WANT" "$TMP/$t.replay" || fail "$t: the minimal plan's replay: $(grep FAILED "$TMP/$t.replay")"
    grep -qE '^job [0-9]+ credited [2-9] times' "$TMP/$t.replay" || fail "$t: the minimal plan's replay credits no job twice"
    [ "$(sed -n 's/^trace hash //p' "$TMP/$t.replay")" = "$(tail -n 1 "$TMP/$t.verify")" ] || fail "$t: replay and verify hashes differ"
    echo "$n faults -> $k in $(sed -nE 's/.* in ([0-9]+) candidate runs$/\1/p' <<<"$sum") candidate runs"
}

# --- 1, 2. crashes and partitions ----------------------------------------------
seed=$(first_failure "$D/jq.conf" 1-30 "$TMP/sweep.out") || exit 1
res=$(shrink_to "$D/jq.conf" "$seed" min) || exit 1
python3 - "$TMP/min.json" <<'PY' || fail "the minimal plan is not one or two crashes or partitions: $(cat "$TMP/min.json")"
import json, sys
f = json.load(open(sys.argv[1]))["faults"]
assert 1 <= len(f) <= 2 and all(x["kind"] in ("crash", "partition") for x in f), f
PY
note "crashes and partitions: seed $seed fails ($(grep -m1 -E '^job [0-9]+ credited [2-9] times' "$TMP/min.replay")); shrank $res: $(python3 -c 'import json,sys; print(", ".join(x["kind"] for x in json.load(open(sys.argv[1]))["faults"]))' "$TMP/min.json"); replays to $(tail -n 1 "$TMP/min.verify") twice"

# --- 3. partitions alone ------------------------------------------------------
pseed=$(first_failure "$D/part.conf" 1-30 "$TMP/psweep.out") || exit 1
pres=$(shrink_to "$D/part.conf" "$pseed" pmin) || exit 1
python3 - "$TMP/pmin.json" <<'PY' || fail "the minimal plan is not one or two partitions: $(cat "$TMP/pmin.json")"
import json, sys
f = json.load(open(sys.argv[1]))["faults"]
assert 1 <= len(f) <= 2 and all(x["kind"] == "partition" and len(x["sides"]) == 2 for x in f), f
PY
note "partitions: seed $pseed shrank $pres: $(python3 -c 'import json,sys; print("; ".join(" | ".join(" ".join(s) for s in x["sides"]) + " at %.3fs for %.3fs" % (x["at_ns"] / 1e9, x["duration_ns"] / 1e9) for x in json.load(open(sys.argv[1]))["faults"]))' "$TMP/pmin.json")"

# --- 4. an idempotent bank -----------------------------------------------------
seeds=$(printf '%s\n' "$seed" 1 2 3 4 | sort -un | paste -sd, -)
"$DSIM" run "$D/fixed.conf" --seeds "$seeds" -j 2 >"$TMP/fixed.out" 2>&1 ||
    { cat "$TMP/fixed.out" >&2; fail "fixed: a seed of $seeds failed"; }
"$DSIM" run "$D/fixed.conf" --seeds "$seed" --plan "$TMP/min.json" >"$TMP/fixed.out" 2>&1 ||
    { cat "$TMP/fixed.out" >&2; fail "fixed: the minimal plan of seed $seed fails"; }
note "idempotent bank: seeds $seeds pass, and seed $seed with its minimal plan"
