#!/bin/bash
# A process's own counters in /proc are dsim's (proc_counters): CPU time in
# /proc/PID/stat and schedstat is the steps times the quantum, as times()
# gives it, so a program that polls it until it moves polls as many times
# in every run (it was the host's CPU time); start time, state, context
# switches, resident memory, page faults, the CPU last run on (0), the CPU
# and node masks (the machine's cpus, node 0), queued signals and storage
# I/O are the run's, whatever CPU dsim or a sweep's worker is pinned to;
# /proc/PID/status has the fields of the kernel uname reports (6.1); maps
# shows the machine's device and inode numbers, those stat gives.
. "$(dirname "$0")/lib.sh"
prog=$(build proc_counters)
"$prog" >"$TMP/native.out" 2>/dev/null || fail "proc_counters failed natively"
dsim_exec 1 "$prog" >"$TMP/s1.out" || { cat "$TMP/exec.err" >&2; fail "proc_counters failed under dsim"; }
grep -v '^processor ' "$TMP/native.out" >"$TMP/native.cmp"
grep -v '^processor ' "$TMP/s1.out" >"$TMP/s1.cmp"
diff "$TMP/native.cmp" "$TMP/s1.cmp" >&2 || fail "proc_counters under dsim differs from native"
grep -qx 'processor 0' "$TMP/s1.out" || fail "stat shows the host's CPU"
grep -qx 'Cpus_allowed_list 0-1' "$TMP/s1.out" && grep -qx 'Mems_allowed_list 0' "$TMP/s1.out" ||
    fail "status shows the host's CPU or node masks"
polls() { grep -E '^(polls|stat|schedstat) ' "$TMP/exec.err"; }
polls >"$TMP/p1"
grep -Eq '^polls [0-9]+ [0-9]+$' "$TMP/p1" || { cat "$TMP/exec.err" >&2; fail "no poll counts"; }

# One seed: the same polls and values, whichever CPU dsim is pinned to.
h=$(same_hash_twice 1 "$prog") || exit 1
polls >"$TMP/p2"
diff "$TMP/p1" "$TMP/p2" >&2 || fail "the polls or the counters differ between runs"
if [ "$(nproc)" -ge 2 ] && command -v taskset >/dev/null; then
    for cpu in 0 1; do
        taskset -c "$cpu" "$DSIM" exec --seed 1 -- "$prog" >"$TMP/cpu$cpu.out" 2>"$TMP/exec.err" ||
            fail "dsim exec on CPU $cpu failed"
        polls >"$TMP/cpu$cpu.p"
        cmp -s "$TMP/s1.out" "$TMP/cpu$cpu.out" && cmp -s "$TMP/p1" "$TMP/cpu$cpu.p" ||
            fail "pinned to CPU $cpu, the counters differ"
        [ "$(exec_hash)" = "$h" ] || fail "pinned to CPU $cpu, another hash"
    done
fi

# status has 6.1's fields, in its order, whatever the host's kernel adds.
dsim_exec 1 cut -d: -f1 /proc/self/status >"$TMP/fields" 2>/dev/null
tr '\n' ' ' <"$TMP/fields" >"$TMP/fields.line"
want="Name Umask State Tgid Ngid Pid PPid TracerPid Uid Gid FDSize Groups NStgid NSpid NSpgid NSsid VmPeak VmSize VmLck VmPin VmHWM VmRSS RssAnon RssFile RssShmem VmData VmStk VmExe VmLib VmPTE VmSwap HugetlbPages CoreDumping THP_enabled Threads SigQ SigPnd ShdPnd SigBlk SigIgn SigCgt CapInh CapPrm CapEff CapBnd CapAmb NoNewPrivs Seccomp Seccomp_filters Speculation_Store_Bypass SpeculationIndirectBranch Cpus_allowed Cpus_allowed_list Mems_allowed Mems_allowed_list voluntary_ctxt_switches nonvoluntary_ctxt_switches "
[ "$(cat "$TMP/fields.line")" = "$want" ] || fail "status fields: $(cat "$TMP/fields.line")"

# maps names files by the machine's device and inode numbers, laid out as
# the kernel does (the host's overlay device and a memfd's inode are new in
# every run).
dsim_exec 1 /bin/sh -c 'cat /proc/self/maps /proc/$$/maps' >"$TMP/maps1" 2>/dev/null
dsim_exec 1 /bin/sh -c 'cat /proc/self/maps /proc/$$/maps' >"$TMP/maps2" 2>/dev/null
cmp -s "$TMP/maps1" "$TMP/maps2" || { diff "$TMP/maps1" "$TMP/maps2" >&2; fail "maps differ between runs"; }
grep -q '/usr/bin/cat$' "$TMP/maps1" && grep -q '/usr/bin/dash$' "$TMP/maps1" || fail "maps lack cat or the shell"
awk '$6 != "" && $5 != 0 && $4 !~ /^00:[23][0-9a-f]$/ { print; bad = 1 } END { exit bad }' "$TMP/maps1" >&2 ||
    fail "maps show host device numbers"
awk '$6 != "" && index($0, $6) != 74 { print; bad = 1 } END { exit bad }' "$TMP/maps1" >&2 ||
    fail "maps names do not start at column 74"
# A mapped file's numbers in maps are those stat gives it (maps keyed the
# host's device, not the machine's mount: 0:36 487 where stat said 0:32 10).
maps_stat() { /bin/sh -c 'grep -m1 " /usr/bin/dash$" /proc/$$/maps | cut -c1-73 | awk "{print \$4, \$5}"
    stat -c "%Hd %Ld %i" /usr/bin/dash'; }
same_file() {
    local mdev mino t T sino
    { read -r mdev mino; read -r t T sino; } <"$1"
    [ -n "$mdev" ] && [ "$mdev $mino" = "$(printf '%02x:%02x' "$t" "$T") $sino" ] ||
        fail "$2: maps names /usr/bin/dash $mdev $mino, stat $t:$T $sino"
}
maps_stat >"$TMP/ms.native"
same_file "$TMP/ms.native" natively
dsim_exec 1 /bin/sh -c "$(declare -f maps_stat); maps_stat" >"$TMP/ms.dsim" 2>/dev/null
same_file "$TMP/ms.dsim" "under dsim"

# A sweep's workers are pinned to CPUs of their own: -j 1 and -j 2 give
# every seed one hash.
cp "$prog" "$TMP/proc_counters"
write_conf "$TMP/c.conf" <<EOF2
[machine m]
command = ./proc_counters
EOF2
for j in 1 2; do
    timeout -k 5 120 "$DSIM" run "$TMP/c.conf" --seeds 1-4 -j $j --results "$TMP/r$j.jsonl" >/dev/null 2>&1 ||
        fail "the sweep with -j $j failed"
    sed -n 's/.*"seed": *\([0-9]*\).*"hash": *"\([0-9a-f]*\)".*/\1 \2/p' "$TMP/r$j.jsonl" | sort >"$TMP/h$j"
done
[ "$(wc -l <"$TMP/h1")" = 4 ] && cmp -s "$TMP/h1" "$TMP/h2" || { paste "$TMP/h1" "$TMP/h2" >&2; fail "-j 1 and -j 2 give other hashes"; }
note "$(cat "$TMP/p1" | head -n 1); one hash on every CPU and with -j 1 or 2 ($h)"
