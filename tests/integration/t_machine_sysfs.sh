#!/bin/bash
# A machine's /sys is a sysfs of its own network namespace, not a bind of
# the host's tree: lo is its only interface, and no cgroup file system or
# tracing is there; the host's firmware (memory map, ACPI tables) and DMI
# names are empty. Its CPUs are the config's (listed, with a topology, the
# virtual CPU's caches and no frequencies), transparent huge pages and the clock source are Debian
# 6.1's, and the tunables hosts set or size by their memory read Linux's
# defaults for the machine's memory. /proc/PID/cgroup is the root of a
# cgroup namespace, and /proc/PID/status's capabilities are 6.1's. All
# read-only, stamped with the boot time, and the same for every seed: two
# seeds of one sweep (whose worker writes the files once and binds them for
# both) and a seed of another run, whose caller lacks a capability.
. "$(dirname "$0")/lib.sh"
mkdir "$TMP/conf"      # the machine's working directory: not where the outputs go
cat >"$TMP/conf/sys.conf" <<'CONF'
[simulation]
cpus = 5
memory = 2G
[machine m]
command = exec /bin/sh look.sh
CONF
cat >"$TMP/conf/look.sh" <<'SH'
ls /sys/class/net; echo "cgroup fs: $(ls -A /sys/fs/cgroup | wc -l) tracing: $(ls -A /sys/kernel/tracing | wc -l)"
echo "firmware: $(ls -A /sys/firmware | wc -l) dmi: $(ls -A /sys/devices/virtual/dmi 2>/dev/null | wc -l)"
cat /proc/self/cgroup /proc/1/cgroup
grep -E '^Cap(Prm|Eff|Bnd)' /proc/self/status
cd /sys/devices/system/cpu
echo $(ls); echo $(ls cpu0) / $(ls cpu4); cat online possible present kernel_max
cat cpu4/online cpu4/topology/core_id cpu4/topology/core_cpus cpu4/topology/package_cpus_list cpu2/topology/core_siblings
cat cpu4/cache/index0/type cpu4/cache/index2/size cpu4/cache/index2/level cpu4/cache/index2/shared_cpu_list \
    cpu4/cache/index2/shared_cpu_map
nproc --all; getconf _NPROCESSORS_ONLN
cd /sys/kernel/mm/transparent_hugepage; cat enabled defrag hpage_pmd_size
cat /sys/devices/system/clocksource/clocksource0/current_clocksource
cd /proc/sys; cat vm/overcommit_memory vm/overcommit_ratio vm/max_map_count kernel/pid_max kernel/threads-max \
    fs/file-max fs/nr_open kernel/cap_last_cap
for f in /sys/kernel/mm/transparent_hugepage/enabled /proc/sys/vm/overcommit_memory /sys/devices/system/cpu/online; do
    echo 1 2>/dev/null >"$f" && echo "$f: written"
done
stat -c '%n %X %Y %Z' /sys/devices/system/cpu/online /sys/devices/system/cpu/cpu3/topology \
    /sys/kernel/mm/transparent_hugepage/enabled /proc/sys/vm/overcommit_memory /proc/cpuinfo
SH
cat >"$TMP/want" <<'OUT'
lo
cgroup fs: 0 tracing: 0
firmware: 0 dmi: 0
0::/
0::/
CapPrm:	000001ffffffffff
CapEff:	000001ffffffffff
CapBnd:	000001ffffffffff
cpu0 cpu1 cpu2 cpu3 cpu4 isolated kernel_max offline online possible present
cache topology / cache online topology
0-4
0-4
0-4
8191
1
4
10
0-4
1f
Data
1024K
2
4
10
5
5
always [madvise] never
always defer defer+madvise [madvise] never
2097152
tsc
0
50
65530
4194304
16384
209715
1048576
40
/sys/devices/system/cpu/online 1735689500 1735689500 1735689500
/sys/devices/system/cpu/cpu3/topology 1735689500 1735689500 1735689500
/sys/kernel/mm/transparent_hugepage/enabled 1735689500 1735689500 1735689500
/proc/sys/vm/overcommit_memory 1735689500 1735689500 1735689500
/proc/cpuinfo 1735689500 1735689500 1735689500
OUT
"$DSIM" run "$TMP/conf/sys.conf" --seeds 1-2 -j 1 --output "$TMP/out" --results "$TMP/sweep.jsonl" >"$TMP/run.out" 2>&1 ||
    { cat "$TMP/run.out" >&2; fail "the run failed"; }
diff "$TMP/want" "$TMP/out/seed-1/m.stdout" >&2 || fail "seed 1: a machine saw other files in /sys or /proc/sys"
diff "$TMP/want" "$TMP/out/seed-2/m.stdout" >&2 || fail "seed 2 of the sweep: other files than seed 1"
# Seed 3 with CAP_NET_RAW dropped from the caller's bounding set: the
# machine's capabilities are its user namespace's (all of 6.1's), not dsim's.
capsh --drop=cap_net_raw -- -c '"$0" run "$1" --seeds 3 --output "$2"' "$DSIM" "$TMP/conf/sys.conf" "$TMP/out3" \
    >"$TMP/run3.out" 2>&1 || { cat "$TMP/run3.out" >&2; fail "seed 3 failed"; }
diff "$TMP/want" "$TMP/out3/seed-3/m.stdout" >&2 || fail "seed 3 (a caller without CAP_NET_RAW): other files"
# Seed 2 alone (its process writes the files) replays seed 2 of the sweep
# (whose worker wrote them for seed 1); seed 1 differs.
"$DSIM" run "$TMP/conf/sys.conf" --seeds 2 --results "$TMP/two.jsonl" >/dev/null 2>&1 || fail "seed 2 alone failed"
hash_of() { sed -n "s/.*\"seed\":$2,.*\"hash\":\"\([0-9a-f]*\)\".*/\1/p" "$1"; }
h1=$(hash_of "$TMP/sweep.jsonl" 1) h2=$(hash_of "$TMP/sweep.jsonl" 2) h2b=$(hash_of "$TMP/two.jsonl" 2)
[ -n "$h2" ] && [ "$h2" = "$h2b" ] || fail "seed 2: hash $h2 in the sweep, $h2b alone"
[ "$h1" != "$h2" ] || fail "seeds 1 and 2 give one hash: $h1"
# The fixed files' directory goes with the sweep.
[ -z "$(ls -A "$TMP/dsim-runs" 2>/dev/null)" ] || { ls -la "$TMP/dsim-runs" >&2; fail "a run directory is left"; }
note "/sys of the machine's netns (lo only, no cgroups), 5 CPUs with topology, THP, clocksource, 8 sysctls, /proc/PID/cgroup fixed; read-only, boot-time stamped, one view in a sweep's two seeds and another run"
