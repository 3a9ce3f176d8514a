#!/bin/bash
# A simulated TCP socket's O_NONBLOCK, which dsim keeps per socket instead of
# asking the kernel at every wait (sock_nonblock): set by socket and accept4
# flags, fcntl F_SETFL and ioctl FIONBIO, not by a refused F_SETFL nor a plain
# accept; a read with nothing to read fails with EAGAIN or waits for the
# peer's byte accordingly. Native = dsim on two seeds; one seed, one hash.
# No real network: see netns.sh.
. "$(dirname "$0")/netns.sh"
. "$(dirname "$0")/lib.sh"
net_dsim_wrapper 60
prog=$(build sock_nonblock)
h=$(as_native "$prog") || exit 1
grep -q '^read, blocking (second) *1 W$' "$TMP/native.out" || fail "the program's premise: $(cat "$TMP/native.out")"
note "as natively; hash $h twice"
