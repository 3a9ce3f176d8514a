#!/bin/bash
# sendmmsg and recvmmsg on simulated UDP (udp_mmsg): several datagrams in
# one call each way, sources, MSG_TRUNC, MSG_DONTWAIT, MSG_WAITFORONE and a
# blocking recvmmsg that waits for all it asked for. The selftest prints
# under `dsim exec` what it prints natively, on seeds 1-3, and seed 1 gives
# one hash twice.
# No real network: see netns.sh.
. "$(dirname "$0")/netns.sh"
. "$(dirname "$0")/lib.sh"
net_dsim_wrapper 60
prog=$(build udp_mmsg)
h=$(selftest_as_native "$prog") || exit 1
note "sendmmsg/recvmmsg as natively on seeds 1-3; seed 1 hash $h twice"
