#!/bin/bash
# File times of the less common ways to change a file (times_paths.py):
# copy_file_range (cat), sendfile, cp (whose FICLONE is refused, as on
# ext4), a write through a shared mapping, a unix socket's path, a directory
# made again where the host has one, a pipe and /proc. Every time a machine
# sees is on its own clock (before the host's, 2025 here), and two runs of a
# seed print the same times (each of these was the host's clock, different
# in every run).
. "$(dirname "$0")/lib.sh"
mkdir -p "$TMP/w/t"
echo host >"$TMP/w/t/f1"
h=$(same_hash_twice 1 python3 "$PROGS/times_paths.py" "$TMP/w") || { cat "$TMP/exec.err"; exit 1; }
[ "$(wc -l <"$TMP/a.out")" = 9 ] || { cat "$TMP/a.out"; fail "times_paths printed $(wc -l <"$TMP/a.out") lines, not 9"; }
host_now=$(date +%s%N)
while read -r line; do
    ns=${line##* }
    [ "$ns" -lt "$((host_now - 86400 * 1000000000))" ] || fail "${line% *}: mtime $ns is the host's clock"
done <"$TMP/a.out"
note "every path's times are the machine's; hash $h twice"
