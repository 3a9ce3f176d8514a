#!/bin/bash
# A busy host must never change a seed's outcome.
#  1. The spin watchdog counts a thread's own time, not its waits for a CPU:
#     with spin_limit = 1s, compute_burst computing 0.4 s of CPU between two
#     calls passes, with one hash, on a quiet host and with four busy loops
#     on every CPU (there the burst takes over 1 s of real time: the
#     watchdog on the wall clock made it `spin`); a burst of 2 s is `spin`
#     on the busy host too, and the report says how long it waited for a CPU.
#  2. A seed of rename_log with a crash every second on average (restarts,
#     its disk rolled back) gives the same outcome and hash on a quiet host
#     and, twice, under busy loops and a disk-writing loop (the restart
#     waits for the dead incarnation's init: on a busy host it used to
#     mount the disk while the old mount namespace still held it).
# The load is bounded (busy_start: `timeout 300`; the EXIT trap stops it).
. "$(dirname "$0")/lib.sh"
[ -x "$DSIM" ] || fail "no dsim binary at $DSIM"

# verify LABEL CONF RUNS: `dsim verify` of seed 1, from /; "HASH OUTCOME"
# of its first run, after checking that every run gave that.
verify() {
    (cd / && "$DSIM" verify "$2" --seed 1 --runs "$3" >"$TMP/$1.out" 2>&1)
    local runs
    runs=$(sed -n 's/^run [0-9]*: \([0-9a-f]\{32\} .*\)$/\1/p' "$TMP/$1.out" | sort -u)
    [ "$(grep -c '^run ' "$TMP/$1.out")" = "$3" ] && [ "$(wc -l <<<"$runs")" = 1 ] ||
        { cat "$TMP/$1.out" >&2; fail "$1: not $3 runs with one hash and outcome"; }
    echo "$runs"
}

# --- 1. the spin watchdog --------------------------------------------------
B=$TMP/burst
mkdir -p "$B"
cp "$(build compute_burst)" "$B/"
per100=$("$B/compute_burst" calibrate)          # rounds per 100 ms of CPU, natively
[ "${per100:-0}" -gt 0 ] || fail "compute_burst could not calibrate"
printf '[simulation]\nspin_limit = 1s\n[machine m]\ncommand = exec ./compute_burst run %s 2\n' $((per100 * 4)) >"$B/short.conf"
printf '[simulation]\nspin_limit = 1s\n[machine m]\ncommand = exec ./compute_burst run %s 1\n' $((per100 * 20)) >"$B/long.conf"
quiet=$(verify quiet "$B/short.conf" 1)
[ "${quiet#* }" = pass ] || { cat "$TMP/quiet.out" >&2; fail "0.4 s bursts failed on a quiet host: $quiet"; }
busy_start 4
start=$(date +%s%N)
busy=$(verify busy "$B/short.conf" 1)
took=$(( ($(date +%s%N) - start) / 1000000 ))
(cd / && "$DSIM" replay "$B/long.conf" 1 >"$TMP/long.out" 2>&1)
busy_stop
[ "$busy" = "$quiet" ] || { cat "$TMP/busy.out" >&2; fail "0.4 s bursts on a busy host: $busy, on a quiet one: $quiet"; }
grep -q "^seed 1 FAILED: machine m thread [0-9]* ran [0-9.]*s without a syscall .*waiting for a CPU on a busy host" "$TMP/long.out" ||
    { cat "$TMP/long.out" >&2; fail "a 2 s burst on a busy host is not spin, or its report does not tell the wait for a CPU"; }
note "0.4 s bursts: $quiet quiet and busy (the busy run took $took ms); 2 s burst on the busy host: $(grep -m1 -o 'ran [0-9.]*s without.*busy host' "$TMP/long.out")"

# --- 2. crashes, restarts and a disk rolled back ---------------------------
# rename_log replaces its log by write-tmp, fsync, rename without fsyncing
# the directory; [chaos] crashes its machine every second on average.
L=$TMP/log
mkdir -p "$L"
cp "$(build rename_log)" "$PROGS/lost_acks.awk" "$L/"
cat >"$L/log.conf" <<'EOF2'
[simulation]
duration = 30s
[machine log]
command = exec ./rename_log ./names
command-after-restart = exec ./rename_log ./names
[chaos]
machines = log
crash = 1s
crash_down = 10ms..100ms
[check]
command = awk -f "$DSIM_CONFIG_DIR/lost_acks.awk" log.stdout
EOF2
quiet=$(verify log-quiet "$L/log.conf" 1)
case "${quiet#* }" in internal|spin) cat "$TMP/log-quiet.out" >&2; fail "seed 1 on a quiet host: $quiet";; esac
(cd / && "$DSIM" replay "$L/log.conf" 1 --trace "$TMP/log.trace.gz" >/dev/null 2>&1)
restarts=$("$DSIM" trace "$TMP/log.trace.gz" | grep -c ' machine restart ')
[ "$restarts" -ge 3 ] || fail "seed 1 restarted its machine $restarts times, expected at least 3"
busy_start 2
timeout 300 setsid sh -c 'trap "kill \$p 2>/dev/null; exit 0" TERM
    while :; do dd if=/dev/zero of="$1/io" bs=1M count=16 conv=fsync status=none & p=$!; wait $p; done' sh "$TMP" &
BUSY_PIDS="$BUSY_PIDS $!"
got=$(verify log-busy "$L/log.conf" 2)
busy_stop
[ "$got" = "$quiet" ] || fail "seed 1 on a busy host: $got, on a quiet one: $quiet"
rm -f "$TMP/io"
note "crashes: seed 1 ($restarts restarts): $quiet, quiet and twice on a busy host"
