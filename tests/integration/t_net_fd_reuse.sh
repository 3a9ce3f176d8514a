#!/bin/bash
# dsim keeps copies of a process's socket fds between calls
# (syscalls/fdcache.c). sock_fd_reuse closes socket fds and gives their
# numbers to other sockets, replaces them with dup2 and dup3, closes them with
# close_range, a child's exit and a close-on-exec exec, and checks after each
# that the number names the new socket and that the old connection's peer
# read its end (at the exec itself, not at the exit after it): under `dsim
# exec` it prints what it prints natively on seeds 1-3, and seed 1 gives one
# trace hash twice. No real network: see netns.sh.
. "$(dirname "$0")/netns.sh"
. "$(dirname "$0")/lib.sh"
net_dsim_wrapper 60
prog=$(build sock_fd_reuse)
native_net_ok "$prog"
dsim_as_native --seeds "2 3" "$prog" >/dev/null || exit 1
exit 0
