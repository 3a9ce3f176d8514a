# Shared helpers for integration tests. Sourced by tests/integration/t_*.sh.
# Environment (set by `make check`): DSIM (the binary), SRCDIR, BUILDDIR.
set -u
: "${SRCDIR:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${BUILDDIR:=$SRCDIR}"
: "${DSIM:=$BUILDDIR/dsim}"
PROGS="$SRCDIR/tests/programs"
BIN="$BUILDDIR/tests/programs/bin"
mkdir -p "$BIN"
TMP=$(mktemp -d "${TMPDIR:-/tmp}/dsim-test.XXXXXX")
trap 'busy_stop; rm -rf "$TMP"' EXIT
# dsim's run directories go here too, so a test that kills dsim with SIGKILL
# (which leaves its run directory behind) leaves nothing in /tmp.
export TMPDIR="$TMP"

fail() { echo "FAIL: $*" >&2; exit 1; }
note() { echo "# $*"; }

# build NAME: compile tests/programs/NAME.c into $BIN/NAME (once), print path.
build() {
    local src="$PROGS/$1.c" out="$BIN/$1"
    if [ ! -x "$out" ] || [ "$src" -nt "$out" ]; then
        cc -std=gnu11 -O1 -g -Wall -pthread -o "$out.tmp.$$" "$src" >&2 || fail "cannot build $1"
        mv -f "$out.tmp.$$" "$out"
    fi
    echo "$out"
}

# dsim_exec SEED PROG ARGS... : run one program under dsim; its stdout goes to
# stdout, dsim's stderr (including the final "dsim: trace hash HEX" line) to
# $TMP/exec.err. Returns the program's exit status.
# EXEC_OPTS (unset by default) adds options, such as --tsc rewrite.
dsim_exec() {
    local seed=$1; shift
    "$DSIM" exec --seed "$seed" ${EXEC_OPTS:-} -- "$@" 2>"$TMP/exec.err"
}

# refused_here OPTS TEXT WHAT: `dsim exec OPTS -- /bin/true` is refused on this
# host (exit status 2) with TEXT in its message; WHAT names the setting.
refused_here() {
    # shellcheck disable=SC2086
    "$DSIM" exec $1 -- /bin/true 2>"$TMP/refused.err"
    [ $? = 2 ] || fail "$3: not refused with status 2"
    grep -q "$2" "$TMP/refused.err" || fail "$3 refused without a reason: $(cat "$TMP/refused.err")"
}

# host_traps_rdtsc: true if rdtsc faults under PR_SET_TSC here (dsim doctor).
host_traps_rdtsc() { "$DSIM" doctor | grep -q '^  rdtsc faults under PR_SET_TSC *yes'; }

# exec_hash: the trace hash of the last dsim_exec.
exec_hash() { sed -n 's/^dsim: trace hash \([0-9a-f]*\)$/\1/p' "$TMP/exec.err" | tail -n 1; }

# same_hash_twice SEED PROG ARGS...: run twice, fail unless both hashes match.
# Prints the hash. The first run's output is $TMP/a.out, its status $TMP/a.rc.
same_hash_twice() {
    local seed=$1; shift
    dsim_exec "$seed" "$@" >"$TMP/a.out"; echo $? >"$TMP/a.rc"; local h1; h1=$(exec_hash)
    dsim_exec "$seed" "$@" >"$TMP/b.out"; local h2; h2=$(exec_hash)
    [ -n "$h1" ] || { cat "$TMP/exec.err" >&2; fail "no trace hash from dsim exec"; }
    [ "$h1" = "$h2" ] || fail "seed $seed: hash differs between runs: $h1 vs $h2"
    cmp -s "$TMP/a.out" "$TMP/b.out" || fail "seed $seed: output differs between runs"
    echo "$h1"
}

# dsim_timeout [SECS]: from here on every "$DSIM" (the test's own and these
# helpers') runs under `timeout -k 5 SECS` (default 60; $DSIM_TIMEOUT, read at
# each call, overrides it), so a broken dsim cannot hang the suite: a hang
# shows as status 124. REAL_DSIM is the binary itself.
dsim_timeout() {
    [ -x "$DSIM" ] || fail "no dsim binary at $DSIM"
    REAL_DSIM=$DSIM
    DSIM=$TMP/dsim-timeout
    printf '#!/bin/sh\nexec timeout -k 5 "${DSIM_TIMEOUT:-%s}" "%s" "$@"\n' "${1:-60}" "$REAL_DSIM" >"$DSIM"
    chmod +x "$DSIM"
}

# native_ok [--runs N] PROG ARGS...: PROG, run natively, exits 0 and its
# output ($TMP/native.out) ends in a line "ok"; N more runs (default 1) print
# the same, so the output can stand for what the program must print.
native_ok() {
    local runs=1 i
    [ "$1" = --runs ] && { runs=$2; shift 2; }
    local name; name=$(basename "$1")
    "$@" >"$TMP/native.out" || { cat "$TMP/native.out" >&2; fail "$name failed natively"; }
    [ "$(tail -n 1 "$TMP/native.out")" = ok ] || fail "$name: the native run did not end in ok"
    for i in $(seq "$runs"); do
        "$@" >"$TMP/native2.out" || fail "$name failed natively (run $((i + 1)))"
        diff "$TMP/native.out" "$TMP/native2.out" >&2 || fail "$name: the native output is not deterministic"
    done
}

# dsim_as_native [--seeds "S..."] [--varies] PROG ARGS...: under dsim exec,
# seed 1 gives one trace hash twice, exits 0 and prints $TMP/native.out;
# each other seed (default 2 3 4; "" for none) exits 0 with that output and
# a trace hash; with --varies, at least one of them has a hash other than
# seed 1's (the schedule follows the seed). Prints seed 1's hash; the hashes
# of all the seeds are in $TMP/seed_hashes, one a line. (Call as
# h1=$(...) || exit 1.)
dsim_as_native() {
    local seeds="2 3 4" varies=0 seed rc h h1 name
    while :; do
        case $1 in
        --seeds) seeds=$2; shift 2 ;;
        --varies) varies=1; shift ;;
        *) break ;;
        esac
    done
    name="$(basename "$1")${2+ ${*:2}}"
    h1=$(same_hash_twice 1 "$@") || exit 1
    rc=$(cat "$TMP/a.rc")
    [ "$rc" = 0 ] || { cat "$TMP/a.out" "$TMP/exec.err" >&2; fail "$name: seed 1: exit $rc"; }
    diff "$TMP/native.out" "$TMP/a.out" >&2 || fail "$name: seed 1: output differs from native"
    echo "$h1" >"$TMP/seed_hashes"
    for seed in $seeds; do
        dsim_exec "$seed" "$@" >"$TMP/s.out"; rc=$?
        [ "$rc" = 0 ] || { cat "$TMP/s.out" "$TMP/exec.err" >&2; fail "$name: seed $seed: exit $rc"; }
        diff "$TMP/native.out" "$TMP/s.out" >&2 || fail "$name: seed $seed: output differs from native"
        h=$(exec_hash)
        [ -n "$h" ] || fail "$name: seed $seed: no trace hash"
        echo "$h" >>"$TMP/seed_hashes"
    done
    [ "$varies" = 0 ] || [ "$(sort -u "$TMP/seed_hashes" | wc -l)" -ge 2 ] ||
        fail "$name: seeds 1 $seeds all have the trace hash $h1: the schedule does not follow the seed"
    echo "$h1"
}

# untrace FILE: traces are written gzip-compressed; make FILE plain text.
untrace() { gzip -dcf <"$1" >"$1.plain" && mv -f "$1.plain" "$1"; }

# write_conf FILE <<EOF ... : write a cluster.conf.
write_conf() { cat > "$1"; }

# crash_log_conf FILE MACHINE COMMAND [SIMULATION_LINE]: a config of one
# machine that runs COMMAND (again after each restart) for 60 s while
# [chaos] crashes it every 2 s on average; its [check] (lost_acks.awk) fails
# when the machine's output shows an acknowledged record lost.
# SIMULATION_LINE, if given, goes in [simulation].
crash_log_conf() {
    {
        printf '[simulation]\nduration = 60s\n'
        [ $# -lt 4 ] || printf '%s\n' "$4"
        printf '[machine %s]\ncommand = exec %s\ncommand-after-restart = exec %s\n' "$2" "$3" "$3"
        printf '[chaos]\nmachines = %s\ncrash = 2s\ncrash_down = 100ms..500ms\n' "$2"
        printf '[check]\ncommand = awk -f %s/lost_acks.awk %s.stdout\n' "$PROGS" "$2"
    } >"$1"
}

# first_failure CONF SEEDS WHAT: a sweep that must stop at a seed whose
# check failed; prints that seed. (Call as seed=$(...) || exit 1.)
first_failure() {
    timeout -k 5 300 "$DSIM" run "$1" --seeds "$2" -j 2 >"$TMP/first_failure.out" 2>&1
    [ $? = 1 ] || { cat "$TMP/first_failure.out" >&2; fail "$3: no seed of $2 failed"; }
    local seed
    seed=$(sed -n 's/^seed \([0-9]*\) FAILED: the check command failed.*/\1/p' "$TMP/first_failure.out" | head -n 1)
    [ -n "$seed" ] || { cat "$TMP/first_failure.out" >&2; fail "$3: a seed failed for another reason"; }
    echo "$seed"
}

# all_pass CONF SEEDS WHAT: a sweep in which every seed must pass.
all_pass() {
    timeout -k 5 300 "$DSIM" run "$1" --seeds "$2" -j 2 --keep-going >"$TMP/all_pass.out" 2>&1 ||
        { grep -A3 FAILED "$TMP/all_pass.out" >&2; fail "$3"; }
}

# warm_vs_cold CONF SEEDS NAME: CONF's seeds at -j 2 from the sweep's
# snapshot and forced cold (results $TMP/NAME-snapshot.jsonl and
# NAME-cold.jsonl): every seed came from the snapshot (where this host tells
# what a copy's sockets need, dsim doctor; else the sweep said why not) and
# has its cold run's hash. Prints the hashes, one line.
warm_vs_cold() {
    local conf=$1 seeds=$2 name=$3 mode a b
    for mode in snapshot cold; do
        timeout -k 5 300 "$DSIM" run "$conf" --seeds "$seeds" -j 2 --warm $mode --results "$TMP/$name-$mode.jsonl" \
            >"$TMP/$name-$mode.out" 2>"$TMP/$name-$mode.err" ||
            { cat "$TMP/$name-$mode.out" "$TMP/$name-$mode.err" >&2; fail "$name ($mode): a seed failed"; }
    done
    if "$DSIM" doctor | grep -q '^  unix sock_diag, eventfd mode in fdinfo *yes'; then
        grep -qx 'dsim: warm start: seeds start from a snapshot of the point' "$TMP/$name-snapshot.err" &&
            ! grep -q 'serves no more seeds' "$TMP/$name-snapshot.err" ||
            { cat "$TMP/$name-snapshot.err" >&2; fail "$name: the seeds did not start from the snapshot"; }
    else
        grep -q '^dsim: warm start: seeds run cold, not from a snapshot: ' "$TMP/$name-snapshot.err" ||
            { cat "$TMP/$name-snapshot.err" >&2; fail "$name: the snapshot's refusal was not said"; }
    fi
    a=$(result_hashes "$TMP/$name-snapshot.jsonl") b=$(result_hashes "$TMP/$name-cold.jsonl")
    [ "$a" = "$b" ] || fail "$name: hashes $a from the snapshot, $b cold"
    echo "$a"
}
result_hashes() { python3 -c 'import json,sys
print(" ".join(json.loads(l)["hash"] for l in open(sys.argv[1])))' "$1"; }

# one_hash CONF SEED: two runs of the seed give one trace hash; prints it.
one_hash() {
    local h
    h=$(timeout -k 5 120 "$DSIM" verify "$1" --seed "$2" --runs 2 | tail -n 1)
    [ ${#h} = 32 ] || fail "seed $2 of $1 did not replay with one hash"
    echo "$h"
}

# fault_plan CONF SEED: replays SEED of CONF, writing the faults that fired to
# pSEED.json (in the current directory); prints the trace hash.
fault_plan() { "$DSIM" replay "$1" "$2" --plan-out "p$2.json" | sed -n 's/^trace hash //p'; }

# swarm_varies CONF: CONF's [chaos] has swarm = true, so seeds 1-8 do not all
# draw the same number of fault kinds; prints those numbers.
swarm_varies() {
    local s kinds=""
    for s in 1 2 3 4 5 6 7 8; do
        fault_plan "$1" $s >/dev/null
        kinds="$kinds $(python3 -c 'import json,sys; print(len({x["kind"] for x in json.load(open(sys.argv[1]))["faults"]}))' p$s.json)"
    done
    [ "$(tr ' ' '\n' <<<"$kinds" | sort -u | grep -c .)" -gt 1 ] || fail "swarm gave every seed the same number of fault kinds: $kinds"
    echo "$kinds"
}

# disk_decisions CONF SEED: the disk events of the seed's trace.
disk_decisions() {
    timeout -k 5 120 "$DSIM" replay "$1" "$2" --trace "$TMP/dd.gz" >/dev/null 2>&1
    "$DSIM" trace "$TMP/dd.gz" --syscall disk:
}

# result_of RESULTS.jsonl SEED: "HASH OUTCOME" of SEED in a --results file.
result_of() {
    sed -n "s/^{\"seed\":$2,\"outcome\":\"\([^\"]*\)\".*\"hash\":\"\([0-9a-f-]*\)\".*/\2 \1/p" "$1"
}

# busy_start N: a busy host: N busy loops pinned to each CPU this test may
# use (each bounded by `timeout 300`), until busy_stop (the EXIT trap calls
# it too). busy_cpus lists those CPUs. Each loop is a session of its own,
# as unrelated jobs are: with autogroup scheduling, loops sharing the
# test's session would share one CPU share between them.
BUSY_PIDS=""
busy_cpus() {
    awk -F'[:,]' '/^Cpus_allowed_list:/ { for (i = 2; i <= NF; i++) { n = split($i, r, "-");
        for (c = r[1]; c <= r[n]; c++) printf "%d ", c } }' /proc/self/status
}
busy_start() {
    local cpu k
    for cpu in $(busy_cpus); do
        for k in $(seq "$1"); do
            timeout 300 setsid taskset -c "$cpu" sh -c 'while :; do :; done' &
            BUSY_PIDS="$BUSY_PIDS $!"
        done
    done
}
busy_stop() {
    [ -n "$BUSY_PIDS" ] || return 0
    kill $BUSY_PIDS 2>/dev/null
    wait $BUSY_PIDS 2>/dev/null
    BUSY_PIDS=""
}

# same_hash_everywhere CONF SEED: the seed's trace hash under `dsim run`,
# `dsim replay`, `dsim replay --output DIR` and `dsim verify` (twice) is
# one; prints it. dsim's own command line differs between them, and must
# not reach a machine.
same_hash_everywhere() {
    local conf=$1 seed=$2 h_run h_replay h_output h_verify
    timeout -k 5 120 "$DSIM" run "$conf" --seeds "$seed" --results "$TMP/everywhere.jsonl" >/dev/null 2>&1
    h_run=$(sed -n 's/.*"hash": *"\([0-9a-f]*\)".*/\1/p' "$TMP/everywhere.jsonl")
    h_replay=$(timeout -k 5 120 "$DSIM" replay "$conf" "$seed" | sed -n 's/^trace hash //p')
    rm -rf "$TMP/everywhere.out"
    h_output=$(timeout -k 5 120 "$DSIM" replay "$conf" "$seed" --output "$TMP/everywhere.out" | sed -n 's/^trace hash //p')
    h_verify=$(timeout -k 5 120 "$DSIM" verify "$conf" --seed "$seed" --runs 2 | tail -n 1)
    [ ${#h_run} = 32 ] || fail "seed $seed of $conf: no hash from dsim run"
    [ "$h_run" = "$h_replay" ] && [ "$h_run" = "$h_output" ] && [ "$h_run" = "$h_verify" ] ||
        fail "seed $seed of $conf: run $h_run, replay $h_replay, replay --output $h_output, verify $h_verify"
    echo "$h_run"
}
