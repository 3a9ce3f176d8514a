#!/bin/bash
# Every path from a random device reads the machine's stream (random_paths):
# read, pread, readv, preadv, preadv2, and also sendfile (into a pipe, a
# file, a socket, /dev/null, a full pipe it waits on) and splice from
# /dev/urandom and /dev/random, and any read of /dev/hwrng; these used to
# bring the kernel's random bytes. What Linux refuses (copy_file_range,
# mmap, splice into a file, sendfile into an O_APPEND file or a full
# non-blocking pipe) is refused alike. Counts and errors are as native; one
# seed gives one output and hash, another seed other bytes on every path.
. "$(dirname "$0")/lib.sh"
prog=$(build random_paths)
"$prog" >"$TMP/native.out" || fail "random_paths failed natively"
h1=$(same_hash_twice 1 "$prog") || exit 1
cp "$TMP/a.out" "$TMP/s1.out"
dsim_exec 2 "$prog" >"$TMP/s2.out" || { cat "$TMP/exec.err" >&2; fail "seed 2 failed"; }

# The calls' results are the kernel's: counts, errors, offsets.
# Every machine has a /dev/hwrng, whether or not this host does.
cut -d' ' -f1,2 "$TMP/native.out" | grep -v '^hwrng ' >"$TMP/native.counts"
cut -d' ' -f1,2 "$TMP/s1.out" | grep -v '^hwrng ' >"$TMP/s1.counts"
diff "$TMP/native.counts" "$TMP/s1.counts" >&2 || fail "results differ from native"
[ "$(wc -l <"$TMP/s1.out")" = 22 ] || fail "not 22 lines"
grep -q '^hwrng 16 ' "$TMP/s1.out" || fail "the machine's /dev/hwrng gave no 16 bytes"

# Every line with bytes: fresh bytes, the seed's.
awk 'NF == 3 && length($3) == 32 && $3 ~ /^[0-9a-f]+$/ { print $1, $3 }' "$TMP/s1.out" >"$TMP/s1.bytes"
awk 'NF == 3 && length($3) == 32 && $3 ~ /^[0-9a-f]+$/ { print $1, $3 }' "$TMP/s2.out" >"$TMP/s2.bytes"
n=$(wc -l <"$TMP/s1.bytes")
[ "$n" -ge 12 ] || { cat "$TMP/s1.out" >&2; fail "only $n lines carry bytes"; }
[ "$(cut -d' ' -f2 "$TMP/s1.bytes" | sort -u | wc -l)" = "$n" ] || fail "paths repeat bytes within a run"
join "$TMP/s1.bytes" "$TMP/s2.bytes" | awk '$2 == $3 { print "same bytes on seeds 1 and 2: " $1; bad = 1 } END { exit bad }' >&2 ||
    fail "a path reads bytes that are not the seed's"
for k in sendfile_pipe splice_pipe splice_offset sendfile_file sendfile_socket sendfile_full_pipe; do
    grep -q "^$k " "$TMP/s1.bytes" || fail "$k brought no bytes"
done
grep -q '^hwrng ' "$TMP/s1.bytes" || fail "/dev/hwrng is not the seed's"
# The full pipe's sendfile waited in dsim, not in the kernel.
"$DSIM" exec --seed 1 --trace "$TMP/t.gz" -- "$prog" >/dev/null 2>&1
"$DSIM" trace "$TMP/t.gz" --syscall sendfile | grep -q ' blocks$' || fail "no sendfile waited for room"
note "read, pread, readv, preadv(2), sendfile, splice and /dev/hwrng from the seed; hash $h1"
