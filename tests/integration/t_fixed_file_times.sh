#!/bin/bash
# The files dsim puts in place of the host's (/etc/hosts, resolv.conf,
# hostname, machine-id, /proc/cpuinfo, meminfo, stat, loadavg, uptime,
# version, osrelease, boot_id, uuid, the CPU lists in /sys), its /dev/shm
# and the hidden run directories, and the host's /sys and /dev, show the
# machine's boot time (the epoch less 100 s of uptime) in atime, mtime and
# ctime, by stat and statx, also after they are read; they used to show the
# host's clock at the run's start. A file made in /dev/shm gets the
# machine's time. One seed gives one output and hash, a second apart.
. "$(dirname "$0")/lib.sh"
prog=$(build fixed_file_times)
"$prog" >"$TMP/native.out" || fail "fixed_file_times failed natively"
[ "$(grep -c '^/' "$TMP/native.out")" -ge 19 ] || fail "native output is short"

mkdir -p "$TMP/dsim-runs"
h1=$(dsim_exec 1 "$prog" "$TMP/dsim-runs" >"$TMP/s1.out" && exec_hash) || { cat "$TMP/exec.err" >&2; fail "dsim exec failed"; }
sleep 1.1
h2=$(dsim_exec 1 "$prog" "$TMP/dsim-runs" >"$TMP/s2.out" && exec_hash)
[ -n "$h1" ] && [ "$h1" = "$h2" ] || fail "one seed, a second apart: hashes $h1 and $h2"
diff "$TMP/s1.out" "$TMP/s2.out" >&2 || fail "one seed, a second apart: other file times"
boot="1735689500.000000000"
awk -v b="$boot" '$2 != b || $3 != b || $4 != b' "$TMP/s1.out" >"$TMP/odd"
[ ! -s "$TMP/odd" ] || { cat "$TMP/odd" >&2; fail "files with times other than the boot time $boot"; }
[ "$(wc -l <"$TMP/s1.out")" = 20 ] || { cat "$TMP/s1.out" >&2; fail "not 20 files"; }

# The boot time follows the configured epoch.
cp "$prog" "$TMP/fixed_file_times"
write_conf "$TMP/c.conf" <<EOF2
[simulation]
epoch = 2030-01-01
[machine m]
command = ./fixed_file_times
EOF2
"$DSIM" replay "$TMP/c.conf" 1 --output "$TMP/out" >/dev/null 2>&1 || fail "the epoch run failed"
awk '$2 != "1893455900.000000000" || $3 != $2 || $4 != $2' "$TMP/out/seed-1/m.stdout" >"$TMP/odd"
[ ! -s "$TMP/odd" ] || { cat "$TMP/odd" >&2; fail "with epoch 2030-01-01, times other than its boot time"; }

# /dev/shm: the machine's own; what it makes there has the machine's time.
shm() {
    dsim_exec 1 /bin/sh -c 'touch /dev/shm/a; echo x >/dev/shm/b; mkdir /dev/shm/d
        stat -c "%n %X %Y %Z" /dev/shm /dev/shm/a /dev/shm/b /dev/shm/d' 2>/dev/null
}
shm >"$TMP/shm1"; sleep 1.1; shm >"$TMP/shm2"
cmp -s "$TMP/shm1" "$TMP/shm2" || { diff "$TMP/shm1" "$TMP/shm2" >&2; fail "/dev/shm times differ a second apart"; }
[ "$(awk '$2 == 1735689600 && $3 == 1735689600 && $4 == 1735689600' "$TMP/shm1" | wc -l)" = 4 ] ||
    { cat "$TMP/shm1" >&2; fail "/dev/shm: not the machine's time"; }
note "fixed files, /sys, /dev, /dev/shm and the run directories at the machine's boot time; hash $h1"
