#!/bin/bash
# File identities (file_ids): inode and device numbers agree between the
# stat calls, statx and readdir, as natively; and under dsim the numbers
# themselves are the machine's, the same in every run (the host's change
# with every run: a fresh overlay device, fresh inodes).
. "$(dirname "$0")/lib.sh"
prog=$(build file_ids)
"$prog" "$TMP/native" >"$TMP/native.out" || { cat "$TMP/native.out"; fail "file_ids failed natively"; }
dsim_exec 1 "$prog" /var/tmp/ids >"$TMP/dsim.out" || { cat "$TMP/exec.err" "$TMP/dsim.out"; fail "file_ids failed under dsim"; }
diff "$TMP/native.out" "$TMP/dsim.out" >&2 || fail "file identities under dsim differ from native"
h=$(same_hash_twice 1 "$prog" /var/tmp/ids --numbers) || exit 1
grep -q '^numbers: ' "$TMP/a.out" || fail "no numbers printed"
note "file identities as native; numbers one per run ($(grep '^numbers' "$TMP/a.out")); hash $h twice"
