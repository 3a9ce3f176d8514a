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
native_net "$prog" >"$TMP/native.out" 2>"$TMP/native.err" ||
    { cat "$TMP/native.out" "$TMP/native.err" >&2; fail "sock_fd_reuse failed natively"; }
[ "$(tail -n 1 "$TMP/native.out")" = ok ] || fail "native run did not end with ok"
for seed in 1 2 3; do
    dsim_exec $seed "$prog" >"$TMP/s.out"; rc=$?
    [ "$rc" = 0 ] || { cat "$TMP/s.out" "$TMP/exec.err" >&2; fail "seed $seed: exit $rc"; }
    diff "$TMP/native.out" "$TMP/s.out" >&2 || fail "seed $seed: output differs from native"
done
same_hash_twice 1 "$prog" >/dev/null || exit 1
exit 0
