#!/bin/bash
# Bad and borrowed clock ids answer as Linux does (clock_ids), through
# libc's clock_gettime (the clock page's stub makes the system call for
# them) and the system calls clock_gettime, clock_getres, clock_nanosleep
# and timer_create: -1 and the other CPU clocks of type 3 are EINVAL, a
# CPU clock of no process, of a reaped one or of another process's thread
# EINVAL (glibc's clock_getcpuclockid: ESRCH), a clock fd's id EINVAL to
# read and EOPNOTSUPP to sleep on or time, the raw and coarse clocks
# EOPNOTSUPP to time; which error comes first; a failed timer_create past
# the clock check uses up an id. Natively and under dsim with the same
# output, with clock_reads = page (the default) and stop; one seed, one
# hash.
. "$(dirname "$0")/lib.sh"
dsim_timeout
prog=$(build clock_ids)
native_ok "$prog"
grep -q '^-1 (thread clock of type 3): libc clock_gettime *-1 EINVAL$' "$TMP/native.out" ||
    fail "natively, clock_gettime(-1) is not EINVAL: the test's premise is wrong on this kernel"
h_page=$(dsim_as_native --seeds 2 "$prog") || exit 1
h_stop=$(EXEC_OPTS="--clock-reads stop" dsim_as_native --seeds 2 "$prog") || exit 1
note "as natively with clock_reads = page ($h_page) and stop ($h_stop)"
