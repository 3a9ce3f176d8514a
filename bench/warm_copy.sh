#!/bin/bash
# The warm-start spike (issue 14 item 3; docs/design.md "Warm start"):
# builds bench/warm_copy.c and runs it, as root. Prints whether a machine
# stopped at a point P can be copied per seed (same pids, own disk, handed
# to a forked supervisor) and what a copy costs against a cold machine
# start, as a ratio, also with a CPython command's start-up. Leaves nothing behind: its mounts live in a private
# mount namespace of the program, its processes die with it.
#   bench/warm_copy.sh [SEEDS] [COLD]    (default 100 copies, 30 cold starts)
NAME=warm_copy.sh
SEEDS=${1:-100}
COLD=${2:-30}
HERE=$(cd "$(dirname "$0")" && pwd -P)
[ "$(id -u)" = 0 ] || { echo "$NAME: run as root" >&2; exit 1; }
TMP=$(mktemp -d "${TMPDIR:-/tmp}/dsim-warm.XXXXXX") || exit 1
trap 'rm -rf "$TMP"' EXIT
cc -O2 -Wall -Wextra -o "$TMP/warm_copy" "$HERE/warm_copy.c" || exit 1
mkdir "$TMP/scratch"
run() { "$TMP/warm_copy" "$TMP/scratch" "$@"; }

echo "== 1. dsim's layout today: the host's user namespace owns the machine's pid namespace"
run --cold 3 --layout dsim | grep -v "^  "
echo
echo "== 2. a copy detached without a stop, then the copies of $SEEDS seeds, and where the time goes"
run --cold "$COLD" --seeds "$SEEDS" --unsafe-handoff | tee "$TMP/main.txt"
status=${PIPESTATUS[0]}
echo
echo "== 3. without resetting the next-pid cursor per seed: the child pid the seeds print"
run --cold 1 --seeds 4 --no-cursor-reset | grep -E "differs|as expected"
echo
echo "== 4. forking the seed's supervisor from a bigger server (the template server's heap, MB)"
for mb in 0 64 256; do
    printf "  %4s MB: " "$mb"
    run --cold 1 --seeds 20 --ballast "$mb" | sed -n 's/^  fork the seed.s supervisor, until it runs *//p'
done
echo
echo "== 5. CPython as the command: what a copy saves (its start-up to P, every call a stop)"
if [ -x /usr/bin/python3 ]; then
    run --cold 10 --seeds 20 --python > "$TMP/python.txt"
    pystatus=$?
    grep -E '^P reached|as expected|^RESULT' "$TMP/python.txt"
    [ "$pystatus" = 0 ] || status=$pystatus
else
    echo "  (no /usr/bin/python3)"
fi
echo
grep '^RESULT' "$TMP/main.txt"
exit "$status"
