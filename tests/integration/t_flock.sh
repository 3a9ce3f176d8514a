#!/bin/bash
# A blocking flock waits in the supervisor until the holder unlocks: same
# output as native, one hash per seed, never a hang.
. "$(dirname "$0")/lib.sh"
dsim_timeout
prog=$(build flock_wait)
"$prog" "$TMP" >"$TMP/native.out" || fail "native run failed"
[ "$(cat "$TMP/native.out")" = "$(printf 'parent unlocking\nchild got lock')" ] || fail "native output: $(cat "$TMP/native.out")"
dsim_as_native --seeds "2 3" "$prog" "$TMP" >/dev/null || exit 1
