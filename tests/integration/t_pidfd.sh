#!/bin/bash
# pidfds (were fences): pidfd_open, poll on a pidfd until its process ends,
# pidfd_send_signal waking a child blocked in pause() into its handler and
# killing another (dsim interrupts whom Linux would), waitid(P_PIDFD),
# pidfd_getfd, and their errors: native = dsim on seeds 1 and 2; one seed,
# one hash.
. "$(dirname "$0")/lib.sh"
prog=$(build pidfd)
timeout 30 "$prog" >"$TMP/native.out" || { cat "$TMP/native.out"; fail "pidfd failed natively"; }
grep -q "waitid P_PIDFD *0 code 1 status 7" "$TMP/native.out" || { cat "$TMP/native.out"; fail "the native run tests nothing"; }
h=$(dsim_as_native --seeds 2 "$prog") || exit 1
note "pidfd as natively; hash $h twice"
