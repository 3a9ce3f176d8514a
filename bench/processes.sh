#!/bin/bash
# processes.sh [N]: what starting a process costs under dsim, and whether
# it stays flat as a run goes on. A shell loop runs N and 4N pipelines
# (echo | cat) natively and under `dsim exec`; best of 3 for each. Prints
# the wall time per pipeline, the dsim/native ratio, and the 4N/N ratio of
# dsim's time per pipeline (1.0: flat; above, each step walks more the
# longer the run). Run it by hand, as root; `make check` does not run it.
#
# dsim is $DSIM, or ../dsim relative to this script.
set -u
N=${1:-500}
case $N in ''|*[!0-9]*|0) echo "usage: $0 [N]   (N >= 1, default 500)" >&2; exit 2 ;; esac
HERE=$(cd "$(dirname "$0")" && pwd -P)
DSIM=${DSIM:-$HERE/../dsim}
[ -x "$DSIM" ] && [ -f "$DSIM" ] || { echo "processes: no dsim at $DSIM (build it, or set DSIM)" >&2; exit 1; }

loop() { echo "i=0; while [ \$i -lt $1 ]; do echo \$i | /bin/cat >/dev/null; i=\$((i+1)); done"; }
now_ns() { date +%s%N; }
# best CMD...: the smallest wall time in ns of 3 runs.
best() {
    local b=""
    for _ in 1 2 3; do
        local t0; t0=$(now_ns)
        "$@" >/dev/null 2>&1 || { echo "processes: failed: $*" >&2; exit 1; }
        local d=$(( $(now_ns) - t0 ))
        [ -z "$b" ] || [ "$d" -lt "$b" ] && b=$d
    done
    echo "$b"
}
per() { echo "scale=1; $1 / $2 / 1000" | bc; }      # ns total / count -> us each

native=$(best /bin/sh -c "$(loop "$N")")
small=$(best "$DSIM" exec --duration 3600s -- /bin/sh -c "$(loop "$N")")
large=$(best "$DSIM" exec --duration 3600s -- /bin/sh -c "$(loop $((4 * N)))")
printf 'native        %8s us per pipeline (%d)\n' "$(per "$native" "$N")" "$N"
printf 'dsim          %8s us per pipeline (%d)\n' "$(per "$small" "$N")" "$N"
printf 'dsim          %8s us per pipeline (%d)\n' "$(per "$large" $((4 * N)))" $((4 * N))
printf 'dsim/native   %8s\n' "$(echo "scale=2; $small / $native" | bc)"
printf '%dN/N         %8s  (1.0: the cost per process stays flat)\n' 4 \
    "$(echo "scale=2; ($large / (4 * $N)) / ($small / $N)" | bc)"
