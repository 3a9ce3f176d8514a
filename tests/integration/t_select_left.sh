#!/bin/bash
# select writes the time left back (select_left): a 3 s select cut by a 1 s
# alarm returns EINTR with about 2 s left, a timed-out one 0, as natively.
# One seed gives one hash.
. "$(dirname "$0")/lib.sh"
prog=$(build select_left)
"$prog" >"$TMP/native.out" || { cat "$TMP/native.out"; fail "select_left failed natively"; }
h=$(dsim_as_native --seeds "" "$prog") || exit 1
note "select's time left as natively; hash $h twice"
