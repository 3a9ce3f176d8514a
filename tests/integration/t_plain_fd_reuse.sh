#!/bin/bash
# dsim passes a read of an fd it knows to name a plain file without probing
# the fd again (syscalls/fdcache.c). plain_fd_reuse reads a file, gives its
# fd number to an empty pipe's read end (close and pipe2, dup2, dup3,
# close_range) and reads it while a child writes only 20 ms later: each read
# must wait for the byte (a stale fact would pass it to the kernel, which
# blocks with the writer never run, and the run ends as a spin). Under `dsim
# exec` it prints what it prints natively on seeds 1-3, and seed 1 gives one
# trace hash twice.
. "$(dirname "$0")/lib.sh"
prog=$(build plain_fd_reuse)
timeout 30 "$prog" >"$TMP/native.out" || { cat "$TMP/native.out"; fail "plain_fd_reuse failed natively"; }
[ "$(grep -c ': fd reused, read 1 byte' "$TMP/native.out")" = 4 ] || { cat "$TMP/native.out"; fail "natively: not 4 reused fds"; }
h=$(dsim_as_native --seeds "2 3" "$prog") || exit 1
note "reads of reused plain-file fds wait as natively; hash $h twice"
