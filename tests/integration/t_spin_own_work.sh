#!/bin/bash
# The spin watchdog counts only time in which a tracee runs, never dsim's
# own work. dsim is run with an LD_PRELOAD shim (slow_copy.so) that makes
# its durable copy at an fsync take 4 s of real time, as a copy of a file
# of many gigabytes does (dd conv=fsync of 5 GB was reported as "spin ...
# 42 s without a syscall"). fsync_then_compute's fsync returns into a
# computation without a system call, in the same step: 0.1-0.4 s of 4e8
# additions (2e9 took 1.6 s on one host, and twice that when its VM lost
# the CPU, past the 3 s limit with no copy slowed at all).
# With spin_limit = 3s the seed must pass (the watchdog used to add the
# copy's 4 s to the computation), and the shim must have been reached. A
# real spin is still caught (t_spin).
. "$(dirname "$0")/lib.sh"
[ -x "$DSIM" ] || fail "no dsim binary at $DSIM"
shim="$BIN/slow_copy.so"
if [ ! -f "$shim" ] || [ "$PROGS/slow_copy.c" -nt "$shim" ]; then
    cc -shared -fPIC -O1 -Wall -o "$shim.tmp.$$" "$PROGS/slow_copy.c" -ldl || fail "cannot build slow_copy.so"
    mv -f "$shim.tmp.$$" "$shim"
fi
P=$(build fsync_then_compute)
write_conf "$TMP/own.conf" <<CONF
[simulation]
duration = 10s
spin_limit = 3s
[machine main]
command = $P /root/f 400000000
CONF
start=$(date +%s)
LD_PRELOAD="$shim" SLOW_COPY_MS=4000 SLOW_COPY_MARK="$TMP/copied" \
    timeout -k 5 120 "$DSIM" run "$TMP/own.conf" --seeds 1 >"$TMP/run.out" 2>&1 ||
    { cat "$TMP/run.out" >&2; fail "a slow durable copy (dsim's work) was taken for the tracee's"; }
[ -f "$TMP/copied" ] || fail "the shim never slowed a copy: nothing was tested"
elapsed=$(( $(date +%s) - start ))
[ $elapsed -ge 4 ] || fail "a seed with a 4 s copy took only ${elapsed}s"
note "passed with a 4 s copy and spin_limit 3s (${elapsed}s)"
