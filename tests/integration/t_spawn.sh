#!/bin/bash
# spawn.c under dsim: posix_spawn, posix_spawnp with file actions,
# vfork()+execve() and vfork()+_exit().
# The output is the same as natively on every seed, and one seed gives one
# trace hash.
. "$(dirname "$0")/lib.sh"

# Every dsim invocation goes through `timeout 60`.
[ -x "$DSIM" ] || fail "no dsim binary at $DSIM"
REAL_DSIM=$DSIM
DSIM=$TMP/dsim-timeout
printf '#!/bin/sh\nexec timeout -k 5 60 "%s" "$@"\n' "$REAL_DSIM" >"$DSIM"
chmod +x "$DSIM"

prog=$(build spawn)

# Natively: passes its own checks, and prints the same thing every time.
"$prog" >"$TMP/native.out" || { cat "$TMP/native.out" >&2; fail "spawn failed natively"; }
[ "$(tail -n 1 "$TMP/native.out")" = ok ] || fail "native run did not print ok"
"$prog" | cat >"$TMP/native2.out"
cmp -s "$TMP/native.out" "$TMP/native2.out" || fail "spawn is not deterministic natively"

h1=$(same_hash_twice 1 "$prog") || exit 1
note "seed 1 hash $h1"
diff "$TMP/native.out" "$TMP/a.out" >&2 || fail "seed 1: output differs from native"

# Another seed: same output.
dsim_exec 2 "$prog" >"$TMP/s.out"; rc=$?
[ "$rc" = 0 ] || { cat "$TMP/s.out" "$TMP/exec.err" >&2; fail "seed 2: exit $rc"; }
diff "$TMP/native.out" "$TMP/s.out" >&2 || fail "seed 2: output differs from native"
[ -n "$(exec_hash)" ] || fail "seed 2: no trace hash"
note "ok"
