#!/bin/bash
# MSG_MORE and TCP_CORK hold a TCP sender's bytes as Linux does (tcp_cork):
# until a send without MSG_MORE, TCP_CORK cleared, TCP_NODELAY set, the
# writer's shutdown, or the 200 ms ceiling; full segments go at once, and
# after them the rest of a MSG_MORE send; sendfile pushes. Native = dsim on
# two seeds; one seed, one hash. No real network: see netns.sh.
. "$(dirname "$0")/netns.sh"
. "$(dirname "$0")/lib.sh"
net_dsim_wrapper 60
prog=$(build tcp_cork)
h=$(as_native "$prog") || exit 1
grep -q "held" "$TMP/native.out" || fail "nothing was held natively: the program tests nothing"
note "as natively; hash $h twice"
