#!/bin/bash
# The host facts a machine reads from /proc are fixed, never the host's
# (nor the caller's: resource limits, nice value):
# /proc/stat (an idle machine's zero CPU times, one line per configured CPU,
# booted at the epoch), /proc/loadavg (no load), /proc/cpuinfo and
# /proc/meminfo (the configured CPUs and memory) and the boot id. Two seeds
# read the same bytes, and so does a run on any other host. /etc/resolv.conf
# is dsim's (a name server outside the cluster), and the fixed files, which
# every machine of a run shares, are read-only. /proc/self/mounts names
# no run directory, and the run directories' parent looks empty. statfs shows
# the machine's own disk (tmpfs: half the machine's memory).
. "$(dirname "$0")/lib.sh"
dsim_exec 1 /bin/sh -c 'cat /proc/stat /proc/loadavg; grep -c ^processor /proc/cpuinfo;
    head -n 1 /proc/meminfo; cat /proc/sys/kernel/random/boot_id' >"$TMP/one.out" ||
    { cat "$TMP/exec.err"; fail "dsim exec failed"; }
cat >"$TMP/want" <<'OUT'
cpu  0 0 0 0 0 0 0 0 0 0
cpu0 0 0 0 0 0 0 0 0 0 0
cpu1 0 0 0 0 0 0 0 0 0 0
intr 0
ctxt 0
btime 1735689500
processes 1
procs_running 1
procs_blocked 0
softirq 0 0 0 0 0 0 0 0 0 0 0
0.00 0.00 0.00 1/1 1
2
MemTotal:        4194304 kB
6473696d-0000-4000-8000-000000000001
OUT
diff "$TMP/want" "$TMP/one.out" >&2 || fail "a machine saw other host facts"
dsim_exec 2 /bin/sh -c 'cat /proc/stat /proc/loadavg; grep -c ^processor /proc/cpuinfo;
    head -n 1 /proc/meminfo; cat /proc/sys/kernel/random/boot_id' >"$TMP/two.out"
cmp -s "$TMP/one.out" "$TMP/two.out" || fail "seeds 1 and 2 read different host facts"
dsim_exec 1 /bin/sh -c 'cat /etc/resolv.conf; echo x >>/etc/hosts || echo read-only' >"$TMP/etc.out" 2>/dev/null
printf 'nameserver 192.0.2.1\noptions attempts:1 timeout:1\nread-only\n' | diff - "$TMP/etc.out" >&2 ||
    fail "/etc/resolv.conf is not dsim's, or /etc/hosts is writable"
# The machine's mounts name no run directory (a new one in every run).
dsim_exec 1 /bin/sh -c 'grep overlay /proc/self/mounts' >"$TMP/m1.out" 2>/dev/null
dsim_exec 1 /bin/sh -c 'grep overlay /proc/self/mounts' >"$TMP/m2.out" 2>/dev/null
grep -q 'upperdir=upper0' "$TMP/m1.out" || { cat "$TMP/m1.out"; fail "the root overlay's options name a host path"; }
cmp -s "$TMP/m1.out" "$TMP/m2.out" || fail "/proc/self/mounts differs between two runs"
# Run directories (this run's, other seeds') are not a machine's to see.
dsim_exec 1 ls -A "$TMP/dsim-runs" >"$TMP/runs.out" 2>/dev/null || fail "no $TMP/dsim-runs in the machine"
[ -d "$TMP/dsim-runs" ] && [ ! -s "$TMP/runs.out" ] || { cat "$TMP/runs.out"; fail "a machine sees run directories"; }
# /proc/sys/kernel/random/uuid: a new UUID at each read, from the seed.
uuids() { dsim_exec "$1" /bin/sh -c 'cat /proc/sys/kernel/random/uuid /proc/sys/kernel/random/uuid' 2>/dev/null; }
uuids 1 >"$TMP/u1"; uuids 1 >"$TMP/u1b"; uuids 2 >"$TMP/u2"
grep -Eq '^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$' "$TMP/u1" || fail "not a v4 UUID: $(cat "$TMP/u1")"
[ "$(sort -u "$TMP/u1" | wc -l)" = 2 ] || fail "two reads gave one UUID"
cmp -s "$TMP/u1" "$TMP/u1b" || fail "one seed read other UUIDs"
cmp -s "$TMP/u1" "$TMP/u2" && fail "two seeds read the same UUIDs"
# The kernel /proc/version and osrelease tell of is uname's; the resource
# limits, the nice value and the OOM score adjustment are the machine's,
# not the caller's.
dsim_exec 1 /bin/sh -c 'uname -r; cat /proc/sys/kernel/osrelease; cut -d" " -f3 /proc/version' >"$TMP/kern.out" 2>/dev/null
[ "$(sort -u "$TMP/kern.out")" = 6.1.0-dsim ] || fail "kernel releases disagree: $(cat "$TMP/kern.out")"
dsim_exec 1 /bin/sh -c 'ulimit -a; nice; cat /proc/self/oom_score_adj' >"$TMP/lim1.out" 2>/dev/null
(ulimit -S -q 1000; ulimit -S -l 64; ulimit -S -f 10000000; renice -n 3 $$ >/dev/null
 echo 500 >/proc/self/oom_score_adj     # this subshell's, inherited by dsim
 dsim_exec 1 /bin/sh -c 'ulimit -a; nice; cat /proc/self/oom_score_adj') >"$TMP/lim2.out" 2>/dev/null
diff "$TMP/lim1.out" "$TMP/lim2.out" >&2 || fail "the caller's limits, nice value or OOM score adjustment reached the machine"
[ "$(tail -n 1 "$TMP/lim2.out")" = 0 ] || fail "oom_score_adj: $(tail -n 1 "$TMP/lim2.out"), want 0"
# /etc/machine-id is the machine's (from its name), not the host's.
mid1=$(dsim_exec 1 cat /etc/machine-id 2>/dev/null); mid2=$(dsim_exec 2 cat /etc/machine-id 2>/dev/null)
[[ "$mid1" =~ ^[0-9a-f]{32}$ ]] && [ "$mid1" = "$mid2" ] || fail "machine-id: '$mid1' then '$mid2'"
[ ! -f /etc/machine-id ] || [ "$mid1" != "$(cat /etc/machine-id)" ] || fail "a machine sees the host's machine-id"
# Disk sizes and free space are the machine's (the host's change with every
# write): / is its own 1 GiB disk (a tmpfs of 65536 inodes only it writes),
# /dev/shm half its memory.
dsim_exec 1 stat -f -c '%b %f %a %c %d %i' / /dev/shm >"$TMP/df.out" 2>/dev/null
printf '262144 262144 262144 65536 65524 0\n524288 262144 262144 6553600 3276800 0\n' |
    diff - "$TMP/df.out" >&2 || fail "statfs shows the host's disk"
note "/proc/stat, loadavg, cpuinfo, meminfo, boot_id, version, machine-id, resolv.conf, statfs, mounts, limits, nice and oom_score_adj fixed; /etc/hosts read-only; uuid from the seed"
