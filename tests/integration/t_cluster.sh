#!/bin/bash
# cluster.conf runs: several machines (one a daemon), start times, env lines,
# the working directory, [check] (with DSIM_SEED), failing seeds (a check, an
# exit status, a signal, the time limit) and their reports, stopping at the
# first failing seed, --output, seed lists, `dsim replay`, `dsim verify`, and
# the environment of `dsim exec`.
. "$(dirname "$0")/lib.sh"

[ -x "$DSIM" ] || fail "no dsim binary at $DSIM"

# run_dsim ARGS...: run dsim (under `timeout 60`) from /, so that nothing
# depends on the caller's directory; sets rc, keeps stdout and stderr.
run_dsim() {
    (cd / && timeout -k 5 60 "$DSIM" "$@") >"$TMP/run.out" 2>"$TMP/run.err"
    rc=$?
}
show() {
    echo "--- dsim (exit $rc) stdout:" >&2; cat "$TMP/run.out" >&2
    echo "--- stderr:" >&2; tail -n 30 "$TMP/run.err" >&2
}
expect_rc() {   # expect_rc WANT WHAT
    [ "$rc" = "$1" ] || { show; fail "$2: exit $rc, expected $1"; }
}
# The "seed N FAILED: ..." line of the last run.
failed_line() { grep -E '^seed [0-9]+ FAILED: ' "$TMP/run.out" | head -n 1; }

# The caller's environment must not reach the machines.
export LEAKME=from-the-caller

# --- A: three machines, env, start time, daemon, check ---------------------
A=$TMP/a
mkdir -p "$A"
cat >"$A/main.sh" <<'EOF'
echo "t=$(date +%s%N)"
echo "foo=$FOO"
echo "bar=$BAR"
echo "leak=${LEAKME-unset}"
echo "home=$HOME"
echo "host=$(uname -n)"
echo "pwd=$(pwd -P)"
echo "listing=$(ls | tr '\n' ' ' | sed 's/ $//')"
echo "to stderr" >&2
EOF
# Config lines stay short and free of " ;" (inih: line limit, inline comments).
write_conf "$A/cluster.conf" <<EOF
# A: a passing cluster
[simulation]
duration = 30s

[machine main]
env = FOO=hello
env = BAR=two words
command = sh ./main.sh

[machine late]
start = 1500ms
command = echo "t=\$(date +%s%N)" && echo "host=\$(uname -n)"

[machine bg]
daemon = true
command = echo bg started; while true; do sleep 1; done

[check]
command = sh $TMP/check_a.sh
EOF
cat >"$TMP/check_a.sh" <<EOF
# Runs natively, in a directory holding NAME.stdout/NAME.stderr.
echo "\$DSIM_SEED" >>"$TMP/seeds_a.log"
bad() { echo "check_a: \$*" >&2; exit 1; }
for m in main late bg; do
    for s in stdout stderr; do [ -f "\$m.\$s" ] || bad "no \$m.\$s"; done
done
grep -qx 'foo=hello' main.stdout || bad "FOO not set"
grep -qx 'bar=two words' main.stdout || bad "BAR not set"
grep -qx 'leak=unset' main.stdout || bad "the caller's environment leaked"
grep -qx 'home=/root' main.stdout || bad "HOME is not /root"
grep -qx 'host=main' main.stdout || bad "machine main's hostname is not main"
grep -qx 'host=late' late.stdout || bad "machine late's hostname is not late"
grep -qx "pwd=/dsim/config" main.stdout || bad "not run in the config's directory, at /dsim/config"
grep -qx "listing=cluster.conf main.sh" main.stdout || bad "/dsim/config does not hold the config's directory"
grep -qx 'to stderr' main.stderr || bad "main.stderr lacks the line"
grep -qx 'bg started' bg.stdout || bad "the daemon did not run"
t0=\$(sed -n 's/^t=//p' main.stdout)
t1=\$(sed -n 's/^t=//p' late.stdout)
[ -n "\$t0" ] && [ -n "\$t1" ] || bad "no times"
d=\$((t1 - t0))
# late starts 1.5 s of virtual time after main
[ "\$d" -ge 1000000000 ] && [ "\$d" -le 2000000000 ] || bad "late started \$d ns after main"
exit 0
EOF

run_dsim run "$A/cluster.conf" --seeds 1-3
expect_rc 0 "A (seeds 1-3)"
[ "$(sort -n "$TMP/seeds_a.log" | tr '\n' ' ')" = "1 2 3 " ] ||   # workers run in parallel
    fail "A: the check saw DSIM_SEED $(tr '\n' ' ' <"$TMP/seeds_a.log"), expected 1 2 3"

# A seed list, and --output.
rm -f "$TMP/seeds_a.log"
run_dsim run "$A/cluster.conf" --seeds 4,6 --output "$TMP/outA"
expect_rc 0 "A (seeds 4,6 --output)"
[ "$(sort -n "$TMP/seeds_a.log" | tr '\n' ' ')" = "4 6 " ] ||
    fail "A: --seeds 4,6 ran $(tr '\n' ' ' <"$TMP/seeds_a.log")"
for s in 4 6; do
    for m in main late bg; do
        for f in stdout stderr; do
            [ -f "$TMP/outA/seed-$s/$m.$f" ] || fail "--output: no seed-$s/$m.$f"
        done
    done
    grep -qx 'foo=hello' "$TMP/outA/seed-$s/main.stdout" || fail "--output: seed-$s/main.stdout is wrong"
    grep -qx 'to stderr' "$TMP/outA/seed-$s/main.stderr" || fail "--output: seed-$s/main.stderr is wrong"
    grep -qx 'bg started' "$TMP/outA/seed-$s/bg.stdout" || fail "--output: seed-$s/bg.stdout is wrong"
done
[ ! -e "$TMP/outA/seed-5" ] || fail "--seeds 4,6 ran seed 5"

# A relative config path, from the config's parent: commands still run in the
# config's directory (the check verifies pwd).
rm -f "$TMP/seeds_a.log"
(cd "$TMP" && timeout -k 5 60 "$DSIM" run a/cluster.conf --seeds 7) >"$TMP/run.out" 2>"$TMP/run.err"
rc=$?
expect_rc 0 "A (relative config path)"

run_dsim replay "$A/cluster.conf" 1
expect_rc 0 "replay of a passing seed"

run_dsim verify "$A/cluster.conf" --seed 1 --runs 3
expect_rc 0 "verify --runs 3"
last=$(tail -n 1 "$TMP/run.out")
echo "$last" | grep -Eqx '[0-9a-f]{32}' || { show; fail "verify: last line is not a 32-hex-digit hash: '$last'"; }
run_dsim verify "$A/cluster.conf" --seed 1 --runs 2
expect_rc 0 "verify --runs 2"
[ "$(tail -n 1 "$TMP/run.out")" = "$last" ] || fail "verify: seed 1 hash changed between invocations"
run_dsim verify "$A/cluster.conf" --seed 2 --runs 2
expect_rc 0 "verify seed 2"
[ "$(tail -n 1 "$TMP/run.out")" != "$last" ] || fail "verify: seeds 1 and 2 have the same hash"

# --- B: a failing check; the run stops at the first failing seed ----------
B=$TMP/b
mkdir -p "$B"
write_conf "$B/cluster.conf" <<EOF
[machine main]
command = echo value=41

[check]
command = sh $TMP/check_b.sh
EOF
cat >"$TMP/check_b.sh" <<EOF
echo "\$DSIM_SEED" >>"$TMP/seeds_b.log"
grep -qx 'value=42' main.stdout
EOF
run_dsim run "$B/cluster.conf" --seeds 5-7 -j 1 --results "$TMP/b.jsonl"  # one worker: no seed runs ahead
expect_rc 1 "B (failing check)"
line=$(failed_line)
echo "$line" | grep -q '^seed 5 FAILED: ' || { show; fail "B: no 'seed 5 FAILED:' line"; }
echo "$line" | grep -qi 'check' || { show; fail "B: the report does not name the check: $line"; }
grep -Eq "replay: .*dsim replay [^ ]*b/cluster\.conf 5( |\$)" "$TMP/run.out" ||
    { show; fail "B: no 'replay: dsim replay CONF 5' line"; }
[ "$(sed -n 's/.*"seed":\([0-9]*\).*/\1/p' "$TMP/b.jsonl" | tr '\n' ' ')" = "5 " ] ||
    fail "B: the run went on after seed 5 failed (results for $(tr '\n' ' ' <"$TMP/b.jsonl"))"
# No seed of the sweep passed, so seeds past it were tried, checks included,
# for one to compare with; none passed (every seed fails this check). The
# search is bounded in time (2 s here): on a loaded host it may stop early,
# and says so.
last=$(sed -n 's/^  no passing seed to compare with: none of the sweep passed, nor seeds 6-\([0-9]*\).*/\1/p' "$TMP/run.out")
[ -n "$last" ] || { show; fail "B: no 'no passing seed' line"; }
[ "$(tr '\n' ' ' <"$TMP/seeds_b.log")" = "$(seq -s ' ' 5 "$last") " ] ||
    fail "B: checks ran for $(tr '\n' ' ' <"$TMP/seeds_b.log"), want 5 and the seeds after it up to $last"
[ "$last" = 10 ] || grep -q 'nor seeds 6-[0-9]* (the search gave up after' "$TMP/run.out" ||
    { show; fail "B: the search stopped before seed 10 without saying so"; }
run_dsim replay "$B/cluster.conf" 5
expect_rc 1 "replay of a failing seed"

# --- C: a machine exiting 3 -----------------------------------------------
C=$TMP/c
mkdir -p "$C"
write_conf "$C/cluster.conf" <<'EOF'
[machine worker]
command = echo working && exit 3
EOF
run_dsim run "$C/cluster.conf" --seeds 1
expect_rc 1 "C (exit 3)"
line=$(failed_line)
echo "$line" | grep -q '^seed 1 FAILED: ' || { show; fail "C: no 'seed 1 FAILED:' line"; }
echo "$line" | grep -Eqi 'exit|status' || { show; fail "C: the report does not mention the exit: $line"; }
echo "$line" | grep -Eq '(^|[^0-9])3([^0-9]|$)' || { show; fail "C: the report does not mention status 3: $line"; }
grep -q 'worker' "$TMP/run.out" || { show; fail "C: the report does not name the machine"; }

# --- D: a machine killed by a signal --------------------------------------
D=$TMP/d
mkdir -p "$D"
write_conf "$D/cluster.conf" <<'EOF'
[machine victim]
command = kill -9 $$
EOF
run_dsim run "$D/cluster.conf" --seeds 1
expect_rc 1 "D (killed by SIGKILL)"
line=$(failed_line)
echo "$line" | grep -q '^seed 1 FAILED: ' || { show; fail "D: no 'seed 1 FAILED:' line"; }
echo "$line" | grep -Eqi 'signal|killed' || { show; fail "D: the report does not mention a signal: $line"; }
echo "$line" | grep -Eq '(^|[^0-9])9([^0-9]|$)|KILL' || { show; fail "D: the report does not name signal 9: $line"; }

# --- E: the time limit, both ways -----------------------------------------
E=$TMP/e
mkdir -p "$E"
write_conf "$E/short.conf" <<'EOF'
[simulation]
duration = 2s

[machine main]
command = sleep 1 && echo slept
EOF
run_dsim run "$E/short.conf" --seeds 1 --output "$TMP/outE"
expect_rc 0 "E (sleep 1 within a 2 s limit)"
grep -qx slept "$TMP/outE/seed-1/main.stdout" || fail "E: main.stdout lacks 'slept'"
write_conf "$E/long.conf" <<'EOF'
[simulation]
duration = 2s

[machine main]
command = exec sleep 10

[machine beat]
command = exec python3 -c 'import time; [time.sleep(0.1) for _ in iter(int, 1)]'
EOF
run_dsim run "$E/long.conf" --seeds 1
expect_rc 1 "E (sleep 10 past a 2 s limit)"
line=$(failed_line)
echo "$line" | grep -Eqi 'time|limit|duration' || { show; fail "E: the report does not mention the time limit: $line"; }
# It says what each unfinished machine was doing.
grep -Eq '^  machine main thread 2 blocked since 0\.[0-9]+s in clock_nanosleep\(' "$TMP/run.out" ||
    { show; fail "E: the report does not show main's blocked sleep"; }
# A sleep loop fills the last events: shown once, with its count.
grep -Eq '^    \(these 2 repeated [0-9]+ more times, until [0-9.]+\)$' "$TMP/run.out" ||
    { show; fail "E: the sleep loop's events are not folded"; }
# A machine that failed before the time limit is the reason given, not the
# limit another machine ran into.
printf '[simulation]\nduration = 2s\n[machine bad]\ncommand = exit 3\n[machine slow]\ncommand = exec sleep 10\n' >"$E/both.conf"
run_dsim run "$E/both.conf" --seeds 1
expect_rc 1 "E (a failure, then the time limit)"
[ "$(failed_line)" = "seed 1 FAILED: machine bad exited with status 3; then the simulated time limit of 2.000s passed" ] ||
    { show; fail "E: the earlier failure is not the reason: $(failed_line)"; }
# A machine that would start after the end of the run is a config error.
printf '[simulation]\nduration = 2s\n[machine late]\ncommand = true\nstart = 5s\n' >"$E/late.conf"
run_dsim run "$E/late.conf" --seeds 1
expect_rc 2 "E (a machine starting after the end)"
grep -q "late.conf:5: machine \"late\" starts at or after the end of the run" "$TMP/run.err" ||
    { show; fail "E: no file:line error for a machine starting after the end"; }

# --- G: a failure that depends on the seed; stop at the first one ---------
# main reads a byte from /dev/urandom (seeded) and fails when it is odd.
G=$TMP/g
mkdir -p "$G"
write_conf "$G/cluster.conf" <<'EOF'
[machine main]
command = n=$(od -An -N1 -tu1 /dev/urandom | tr -d ' ') && echo "n=$n" && test $((n % 2)) -eq 0
EOF
run_dsim run "$G/cluster.conf" --seeds 1-20 -j 1 --output "$TMP/outG"
expect_rc 1 "G (odd byte on some seed of 1-20)"
N=$(failed_line | sed -n 's/^seed \([0-9]*\) FAILED: .*/\1/p')
[ -n "$N" ] || { show; fail "G: no 'seed N FAILED' line"; }
note "G: first failing seed $N"
n=$(sed -n 's/^n=//p' "$TMP/outG/seed-$N/main.stdout")
[ -n "$n" ] && [ $((n % 2)) = 1 ] || fail "G: seed $N failed but its byte '$n' is not odd"
for ((s = 1; s < N; s++)); do
    n=$(sed -n 's/^n=//p' "$TMP/outG/seed-$s/main.stdout")
    [ -n "$n" ] && [ $((n % 2)) = 0 ] || fail "G: seed $s passed but its byte '$n' is not even"
done
[ ! -e "$TMP/outG/seed-$((N + 1))" ] || fail "G: the run went on past failing seed $N"
bytes=$(for ((s = 1; s <= N; s++)); do cat "$TMP/outG/seed-$s/main.stdout"; done | sort -u | wc -l)
run_dsim replay "$G/cluster.conf" "$N"
expect_rc 1 "G: replay of failing seed $N"
if [ "$N" -gt 1 ]; then
    run_dsim replay "$G/cluster.conf" 1
    expect_rc 0 "G: replay of passing seed 1"
fi
# The byte follows the seed: the same seed reads the same byte again...
run_dsim run "$G/cluster.conf" --seeds "$N" --output "$TMP/outG2"
expect_rc 1 "G: seed $N again"
cmp -s "$TMP/outG/seed-$N/main.stdout" "$TMP/outG2/seed-$N/main.stdout" ||
    fail "G: seed $N read a different byte the second time"
# ...and different seeds read different bytes (20 seeds: all equal would be
# a 1 in 256^19 chance), unless seed 1 already failed.
[ "$N" = 1 ] || [ "$bytes" -gt 1 ] || fail "G: seeds 1-$N all read the same byte"

# --- K: a failing daemon does not fail the seed ---------------------------
K=$TMP/k
mkdir -p "$K"
write_conf "$K/cluster.conf" <<'EOF'
[machine main]
command = sleep 1 && echo main done

[machine flaky]
daemon = true
command = exit 1
EOF
run_dsim run "$K/cluster.conf" --seeds 1-2
expect_rc 0 "K (a daemon exiting 1)"

# --- dsim exec: the environment is the fixed set plus --env ---------------
timeout -k 5 60 "$DSIM" exec --seed 1 --env FOO=bar --env SPACED='a b' -- /usr/bin/env \
    >"$TMP/env.out" 2>"$TMP/env.err"
rc=$?
[ "$rc" = 0 ] || { cat "$TMP/env.err" >&2; fail "dsim exec env: exit $rc"; }
sort "$TMP/env.out" >"$TMP/env.sorted"
sort >"$TMP/env.want" <<'EOF'
PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
HOME=/root
LANG=C.UTF-8
TERM=dumb
HOSTNAME=main
FOO=bar
SPACED=a b
EOF
diff "$TMP/env.want" "$TMP/env.sorted" >&2 || fail "dsim exec: the environment is not the fixed set plus --env"
tail -n 1 "$TMP/env.err" | grep -Eqx 'dsim: trace hash [0-9a-f]{32}' ||
    fail "dsim exec: the last stderr line is not 'dsim: trace hash HEX'"

# dsim exec passes the program's exit status through.
timeout -k 5 60 "$DSIM" exec --seed 1 -- /bin/sh -c 'exit 3' >/dev/null 2>"$TMP/x.err"
rc=$?
[ "$rc" = 3 ] || { cat "$TMP/x.err" >&2; fail "dsim exec of 'exit 3' exited $rc"; }
timeout -k 5 60 "$DSIM" exec --seed 1 -- /bin/sh -c 'kill -TERM $$' >/dev/null 2>"$TMP/x.err"
rc=$?
[ "$rc" = 143 ] || { cat "$TMP/x.err" >&2; fail "dsim exec of a program killed by SIGTERM exited $rc, not 143"; }
note "ok"
