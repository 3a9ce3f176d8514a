#!/bin/bash
# /proc/PID/mountinfo shows the machine's mount ids and devices: the ids
# from 21 in the order of its mounts (the host's come from a global
# counter, another in every run), a mount outside it (its root's parent)
# as 1, the devices those stat gives, peer groups from 1; fdinfo's mount id
# and inode are the machine's too. mount_ids: statx of /, /proc, /dev and
# /dev/shm agrees with mountinfo on the mount id and the device (the device
# did not: mountinfo showed the host's, stat the machine's), and with an
# fd's fdinfo, as natively, on seeds 1-3; the whole table is the same in
# two runs of a seed and in another seed.
. "$(dirname "$0")/lib.sh"
dsim_timeout 60
prog=$(build mount_ids)
native_ok "$prog"
h=$(dsim_as_native --seeds "2 3" "$prog") || exit 1
same_hash_twice 1 cat /proc/self/mountinfo >/dev/null || exit 1
cp "$TMP/a.out" "$TMP/table1"
[ "$(head -n 1 "$TMP/table1" | cut -d' ' -f1,2,5)" = "21 1 /" ] ||
    { head -n 3 "$TMP/table1" >&2; fail "the root mount is not 21, child of 1"; }
awk -v want=21 '$1 != want { print; bad = 1 } { want++ } END { exit bad }' "$TMP/table1" >&2 ||
    fail "mount ids are not 21 upwards in order"
dsim_exec 2 cat /proc/self/mountinfo >"$TMP/table2" 2>/dev/null || fail "seed 2 failed"
cmp -s "$TMP/table1" "$TMP/table2" || { diff "$TMP/table1" "$TMP/table2" >&2; fail "seeds 1 and 2 see other mount tables"; }
note "hash $h; $(wc -l <"$TMP/table1") mounts, 21 upwards, the same in two runs and seeds"
