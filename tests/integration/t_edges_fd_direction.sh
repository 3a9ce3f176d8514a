#!/bin/bash
# Calls Linux refuses at once do not wait under dsim (fd_direction): a read
# of a pipe's write end or a write-only fifo, a write to a pipe's read end
# (EBADF), accept on a datagram socket (EOPNOTSUPP) or an unlistened stream
# socket (EINVAL). They used to block for ever (a deadlock report). Native =
# dsim; one seed gives one hash.
. "$(dirname "$0")/lib.sh"
prog=$(build fd_direction)
timeout 10 "$prog" >"$TMP/native.out" || { cat "$TMP/native.out"; fail "fd_direction failed natively"; }
h=$(dsim_as_native --seeds "" "$prog") || exit 1
note "as natively; hash $h twice"
