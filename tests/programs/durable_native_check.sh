#!/bin/sh
# durable_native_check.sh: run the durability test programs natively and
# check them.
#
#   tests/programs/durable_native_check.sh
#
# Each case (rename_log, rename_log.py, osync_log, create_durable, in every
# variant) runs in a fresh directory: three times killed with SIGKILL part
# way (a process kill, not a power cut: nothing written is lost), then to
# the end. A case passes if the last run exits 0, no "recovered N" is below
# the last ack before it, the acks reach 40, and a run after the end
# recovers 40 and acks nothing. The cases run in parallel (about 5 s).
# Exit status: 0 if all cases passed.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/durprogs.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
for p in rename_log osync_log create_durable; do
    cc -std=gnu11 -O1 -g -Wall -Wextra -Werror -o "$WORK/$p" "$HERE/$p.c" || { echo "FAIL: build $p"; exit 1; }
done

# one NAME TARGET PROG ARGS...: the case NAME; TARGET is the path the
# program is given (inside the case's directory).
one() {
    name=$1 target=$WORK/$name/$2; shift 2
    mkdir -p "$WORK/$name"
    out=$WORK/$name.out
    : >"$out"
    for t in 0.35 0.9 0.55; do
        timeout -s KILL "$t" "$@" "$target" >>"$out" 2>>"$WORK/$name.err"
    done
    "$@" "$target" >>"$out" 2>>"$WORK/$name.err" || { echo "FAIL $name: exit status $?"; return 1; }
    awk '/^ack /{a=$2} /^recovered /{if ($2 < a) {print "LOST: acked " a ", recovered " $2; bad=1}} END{exit bad}' "$out" ||
        { echo "FAIL $name"; return 1; }
    [ "$(grep '^ack' "$out" | tail -n 1)" = "ack 40" ] || { echo "FAIL $name: the acks do not reach 40"; return 1; }
    [ "$("$@" "$target")" = "recovered 40" ] || { echo "FAIL $name: a last run did not recover 40 and stop"; return 1; }
    echo "ok $name: $(grep -c '^ack' "$out") acks, $(grep '^recovered' "$out" | tr '\n' ' ')"
}

{
    one rename_lazy d "$WORK/rename_log" &
    one rename_dirsync d "$WORK/rename_log" --dirsync &
    one rename_py_lazy d python3 "$HERE/rename_log.py" &
    one rename_py_dirsync d python3 "$HERE/rename_log.py" --dirsync &
    one osync_osync log "$WORK/osync_log" --osync &
    one osync_dsync log "$WORK/osync_log" --dsync &
    one osync_none log "$WORK/osync_log" --none &
    one create_lazy d "$WORK/create_durable" &
    one create_dirsync d "$WORK/create_durable" --dirsync &
    wait
} >"$WORK/results" 2>&1
sort "$WORK/results"
! grep -q '^FAIL' "$WORK/results"
