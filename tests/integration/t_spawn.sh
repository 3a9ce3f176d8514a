#!/bin/bash
# spawn.c under dsim: posix_spawn, posix_spawnp with file actions,
# vfork()+execve() and vfork()+_exit().
# The output is the same as natively on every seed, and one seed gives one
# trace hash.
. "$(dirname "$0")/lib.sh"
dsim_timeout

prog=$(build spawn)
native_ok "$prog"
# Another seed: same output.
h1=$(dsim_as_native --seeds 2 "$prog") || exit 1
note "seed 1 hash $h1"
note "ok"
