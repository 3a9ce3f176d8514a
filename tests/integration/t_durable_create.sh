#!/bin/bash
# Durable names: a store that writes each record to a new file and fsyncs
# it (create_durable). With strict_names (POSIX: only a directory fsync
# makes a name durable) it keeps every acknowledged file across crashes
# only if it also fsyncs the directory: without, the file's content is
# durable but its name is not, and a crash may undo the create (some seed
# of 30 loses a file); with --dirsync none of the same 30 does. By default
# the disk is a journal (ext4, xfs): the file's fsync commits its create,
# so the store without the directory fsync loses nothing either. A failing
# seed replays to one hash, and its trace shows the undone create.
. "$(dirname "$0")/lib.sh"
prog=$(build create_durable)
conf() { crash_log_conf "$TMP/$1.conf" files "$prog $2 /var/tmp/files" "$3"; }
conf lazy "" "strict_names = true"
conf durable --dirsync "strict_names = true"
conf journal "" ""
seed=$(first_failure "$TMP/lazy.conf" 1-30 "create without a directory fsync (strict_names)") || exit 1
all_pass "$TMP/durable.conf" 1-30 "create with a directory fsync lost an acknowledged file"
all_pass "$TMP/journal.conf" 1-30 "a file's fsync did not make its new name durable (default)"
one_hash "$TMP/lazy.conf" "$seed" >/dev/null || exit 1
disk_decisions "$TMP/lazy.conf" "$seed" >"$TMP/disk.txt"
grep -Eq '/var/tmp/files/f[0-9]+.*undone' "$TMP/disk.txt" ||
    { cat "$TMP/disk.txt"; fail "no undone create in the trace of seed $seed"; }
note "create without a directory fsync lost a file at seed $seed; with it none in 30 seeds"
