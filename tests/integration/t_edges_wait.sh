#!/bin/bash
# waitid and wait4 at their edges (wait_edges): options the kernel refuses
# (EINVAL, not a fence), waits for stops only, process-group waits that
# must not take another group's zombie, P_PIDFD. The same output natively
# and under dsim, on several seeds; one seed gives one hash.
. "$(dirname "$0")/lib.sh"
prog=$(build wait_edges)
timeout 30 "$prog" >"$TMP/native.out" || { cat "$TMP/native.out"; fail "wait_edges failed natively"; }
h=$(dsim_as_native --seeds "2 3" "$prog") || exit 1
note "waits as natively; hash $h twice"
