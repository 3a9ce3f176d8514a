#!/bin/bash
# File identities (file_ids): inode and device numbers agree between the
# stat calls, statx and readdir, as natively; and under dsim the numbers
# themselves are the machine's, the same in every run (the host's change
# with every run: a fresh overlay device, fresh inodes), and a restarted
# machine's files keep their numbers.
. "$(dirname "$0")/lib.sh"
prog=$(build file_ids)
"$prog" "$TMP/native" >"$TMP/native.out" || { cat "$TMP/native.out"; fail "file_ids failed natively"; }
dsim_exec 1 "$prog" /var/tmp/ids >"$TMP/dsim.out" || { cat "$TMP/exec.err" "$TMP/dsim.out"; fail "file_ids failed under dsim"; }
diff "$TMP/native.out" "$TMP/dsim.out" >&2 || fail "file identities under dsim differ from native"
h=$(same_hash_twice 1 "$prog" /var/tmp/ids --numbers) || exit 1
grep -q '^numbers: ' "$TMP/a.out" || fail "no numbers printed"
note "file identities as native; numbers one per run ($(grep '^numbers' "$TMP/a.out")); hash $h twice"

# Across a crash: the restarted machine's disk is new mounts (new host
# devices, which the host may or may not hand out again), yet its files
# keep their numbers, as a disk keeps its inode numbers across a reboot,
# and files made after the restart are numbered the same in every run.
write_conf "$TMP/restart.conf" <<CONF
[simulation]
duration = 5s
[machine m]
command = mkdir -p /var/tmp/r && touch /var/tmp/r/a && stat -c '%d %i' / /var/tmp/r /var/tmp/r/a /etc/hostname >/var/tmp/r/before && sync; sleep 10
command-after-restart = touch /var/tmp/r/b && stat -c '%d %i' / /var/tmp/r /var/tmp/r/a /etc/hostname /var/tmp/r/b >/var/tmp/r/after && cat /var/tmp/r/before /var/tmp/r/after && sync
[fault r]
kind = restart
at = 1s
machine = m
duration = 100ms
CONF
"$DSIM" run "$TMP/restart.conf" --seeds 1 --output "$TMP/r" >"$TMP/r.out" 2>&1 || { cat "$TMP/r.out"; fail "the restart run failed"; }
out="$TMP/r/seed-1/m.stdout"
[ "$(wc -l <"$out")" = 9 ] || { cat "$out"; fail "the restarted machine did not print both stats"; }
diff <(head -n 4 "$out") <(sed -n 5,8p "$out") >&2 || fail "a file's numbers changed across the restart"
h=$(one_hash "$TMP/restart.conf" 1) || exit 1
h3=$("$DSIM" verify "$TMP/restart.conf" --seed 1 --runs 3 | tail -n 1)
[ "$h3" = "$h" ] || fail "runs of the restart seed gave other hashes"
note "numbers kept across a restart; the restart seed replays to $h"
