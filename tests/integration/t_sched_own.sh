#!/bin/bash
# The machine's own scheduler. sched_own sets SCHED_FIFO 99, nice -20 and a
# real-time I/O priority, reads them back (sched_getscheduler/getparam/
# getattr, getpriority, ioprio_get), pins itself to CPU 0, and checks the
# errors and their order, per-thread nice, inheritance across fork and
# SCHED_RESET_ON_FORK, a process group's nice, what an unprivileged process
# is refused, SCHED_DEADLINE's rules, and clone(CLONE_UNTRACED)/clone3
# children. Under dsim every line is what native root sees; ids are the
# machine's (a host pid is ESRCH); the CLONE_UNTRACED child is traced (its
# calls are in the trace and hash); and none of it reaches the host: the
# real tracee stays SCHED_OTHER at dsim's nice with no I/O priority.
. "$(dirname "$0")/lib.sh"
dsim_timeout 120
P=$(build sched_own)

if [ "$(id -u)" = 0 ]; then
    # Natively (a short run: it changes only itself, its children and a
    # process group of its own).
    "$P" show >"$TMP/native.out" || fail "sched_own failed natively"
    grep -q '^set: policy 0x1 priority 99 nice -20 ioprio 8192 cpu0 1$' "$TMP/native.out" ||
        fail "native: FIFO 99 / nice -20 / ioprio not read back: $(cat "$TMP/native.out")"
else
    note "not root: no native reference; comparing with the lines root gets"
fi
for seed in 1 2 3; do
    dsim_exec $seed "$P" show >"$TMP/s.out" || { cat "$TMP/s.out" "$TMP/exec.err" >&2; fail "seed $seed failed"; }
    if [ -f "$TMP/native.out" ]; then
        diff "$TMP/native.out" "$TMP/s.out" >&2 || fail "seed $seed: differs from native root"
    fi
    grep -q '^set: policy 0x1 priority 99 nice -20 ioprio 8192 cpu0 1$' "$TMP/s.out" || fail "seed $seed: not read back"
    grep -q '^untraced clone: flags intact 1, child exit 7$' "$TMP/s.out" || fail "seed $seed: CLONE_UNTRACED child"
    grep -q '^untraced clone3: flags intact 1, child exit 8$' "$TMP/s.out" || fail "seed $seed: clone3 CLONE_UNTRACED child"
done
h=$(same_hash_twice 1 "$P" show) || exit 1
note "show: seed 1 hash $h"

# The CLONE_UNTRACED children are dsim's like any other: their calls are
# traced (and so hashed).
"$REAL_DSIM" exec --seed 1 --trace "$TMP/tr.gz" -- "$P" show >/dev/null 2>&1 || fail "traced run failed"
untrace "$TMP/tr.gz"
kid=$(sed -n 's/.* clone(0x800011, .*) = \([0-9]*\)$/\1/p' "$TMP/tr.gz")
[ -n "$kid" ] || fail "no clone(CLONE_UNTRACED) in the trace"
grep -q "^[0-9.]* main $kid exit_group(7)$" "$TMP/tr.gz" || fail "the CLONE_UNTRACED child's calls are not traced"
kid3=$(sed -n 's/.* clone3(p, 88) = \([0-9]*\)$/\1/p' "$TMP/tr.gz" | tail -n 1)
grep -q "^[0-9.]* main $kid3 exit_group(8)$" "$TMP/tr.gz" || fail "the clone3 CLONE_UNTRACED child's calls are not traced"

# With dsim run the output is hashed too: one hash per seed.
write_conf "$TMP/s.conf" <<EOF
[machine main]
command = exec $P show
EOF
one_hash "$TMP/s.conf" 4 >/dev/null || exit 1

# SCHED_DEADLINE: natively if this host admits it, else against root's lines.
if [ -f "$TMP/native.out" ] && "$P" deadline >"$TMP/dl.native" 2>&1 &&
   grep -q '^DEADLINE 1ms/10ms: ok$' "$TMP/dl.native"; then
    dsim_exec 1 "$P" deadline >"$TMP/dl.out" || fail "deadline: exit"
    diff "$TMP/dl.native" "$TMP/dl.out" >&2 || fail "deadline: differs from native"
else
    dsim_exec 1 "$P" deadline >"$TMP/dl.out" || fail "deadline: exit"
    grep -q '^fork: EAGAIN$' "$TMP/dl.out" || fail "deadline: a SCHED_DEADLINE thread forked"
fi

# Ids are the machine's: this shell's pid is no process of the machine.
dsim_exec 1 "$P" gone $$ >"$TMP/gone.out" || fail "gone: exit"
[ "$(cat "$TMP/gone.out")" = "getscheduler: ESRCH
getpriority: ESRCH
ioprio_get: ESRCH" ] || fail "a host pid reached from the machine: $(cat "$TMP/gone.out")"

# Nothing reaches the host: while the program holds (FIFO 99, nice -20,
# ioprio RT 0 set), its real process and threads are as dsim left them.
dsim_nice=$(awk '{ sub(/^.*\) /, ""); print $17 }' /proc/self/stat)
"$REAL_DSIM" exec --seed 1 -- "$P" hold >"$TMP/hold.out" 2>"$TMP/hold.err" &
dpid=$!
for _ in $(seq 1 600); do
    grep -q '^holding$' "$TMP/hold.out" 2>/dev/null && break
    kill -0 $dpid 2>/dev/null || break
    sleep 0.05
done
grep -q '^holding$' "$TMP/hold.out" || { kill $dpid 2>/dev/null; wait $dpid; fail "hold: never got to holding"; }
pid=$(pgrep -x -f "$P hold")
[ -n "$pid" ] || { kill $dpid; wait $dpid; fail "hold: the tracee is gone before it could be looked at"; }
checked=0
for stat in /proc/"$pid"/task/*/stat; do
    fields=$(awk '{ sub(/^.*\) /, ""); print $17, $38, $39 }' "$stat" 2>/dev/null) || continue
    [ -n "$fields" ] || continue
    set -- $fields      # nice rt_priority policy
    [ "$1" = "$dsim_nice" ] && [ "$2" = 0 ] && [ "$3" = 0 ] ||
        { kill $dpid; wait $dpid; fail "the host's scheduling changed: nice $1 rt_priority $2 policy $3 in $stat"; }
    checked=$((checked + 1))
done
if command -v ionice >/dev/null; then
    io=$(ionice -p "$pid")
    [ "$io" = "none: prio 0" ] || { kill $dpid; wait $dpid; fail "the host's I/O priority changed: $io"; }
fi
wait $dpid || fail "hold: dsim exec failed: $(cat "$TMP/hold.err")"
grep -q '^held$' "$TMP/hold.out" || fail "hold: did not finish"
[ "$checked" -ge 1 ] || fail "hold: no thread looked at"
note "host untouched: $checked thread(s) of pid $pid SCHED_OTHER, nice $dsim_nice"
