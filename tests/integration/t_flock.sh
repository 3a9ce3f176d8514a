#!/bin/bash
# A blocking flock waits in the supervisor until the holder unlocks: same
# output as native, one hash per seed, never a hang.
. "$(dirname "$0")/lib.sh"
prog=$(build flock_wait)
want=$("$prog" "$TMP") || fail "native run failed"
[ "$want" = "$(printf 'parent unlocking\nchild got lock')" ] || fail "native output: $want"
same_hash_twice 1 "$prog" "$TMP" >/dev/null || exit 1
diff <(echo "$want") "$TMP/a.out" >&2 || fail "output differs from native"
for seed in 2 3; do
    out=$(timeout -k 5 60 "$DSIM" exec --seed $seed -- "$prog" "$TMP" 2>/dev/null) || fail "seed $seed failed"
    [ "$out" = "$want" ] || fail "seed $seed: $out"
done
