#!/bin/bash
# SO_RCVTIMEO and SO_SNDTIMEO (sock_timeout): a read, recv or accept with
# nothing to take fails with EAGAIN once the receive timeout has passed on
# virtual time, and blocking writes into a full socket return the part they
# moved, then EAGAIN, after the send timeout; on a unix socketpair and on
# simulated TCP. Under `dsim exec` the program prints what it prints
# natively on seeds 1-3, and seed 1 gives one trace hash twice.
# No real network: see netns.sh.
. "$(dirname "$0")/netns.sh"
. "$(dirname "$0")/lib.sh"
net_dsim_wrapper 60
prog=$(build sock_timeout)
h=$(selftest_as_native "$prog") || exit 1
note "socket timeouts as natively on seeds 1-3; seed 1 hash $h twice"
