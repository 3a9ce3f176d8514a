#!/bin/bash
# fork_wait.c under dsim: five children reaped by waitpid(pid), waitpid(-1) and
# waitid(P_ALL); WNOHANG/WNOWAIT; ECHILD; a SIGKILLed child is WIFSIGNALED.
# The output is the same as natively on every seed, and one seed gives one
# trace hash.
. "$(dirname "$0")/lib.sh"
dsim_timeout

prog=$(build fork_wait)
native_ok "$prog"
# Other seeds: same output (the program's results do not depend on the
# schedule), but the schedule itself does depend on the seed: at least one of
# them interleaves the processes differently from seed 1.
h1=$(dsim_as_native --varies "$prog") || exit 1
note "seed 1 hash $h1"
note "ok"
