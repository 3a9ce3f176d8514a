#!/bin/bash
# System V IPC made real (it was a fence): shared memory, semaphores and
# message queues in each machine's own IPC namespace, with waits in dsim on
# virtual time and the times IPC_STAT reports on the machine's clock. Each
# program runs natively (in an IPC namespace of its own) and under dsim
# with the same output on seeds 1-3, and seed 1 gives one hash twice:
#  - ipc_shm: attach, fork, detach, remove while attached; counts, times,
#    errors;
#  - ipc_sem: values, operations all or none, IPC_NOWAIT, SEM_UNDO at exit,
#    GETPID, times, errors in Linux's order;
#  - ipc_sem_wait: semop waiting for a raise (GETNCNT counts it), for zero
#    (GETZCNT), for two semaphores at once; semtimedop's timeout; EINTR even
#    under SA_RESTART; EIDRM when the set goes;
#  - ipc_msg: receives by type, E2BIG and MSG_NOERROR, a full queue, counts,
#    pids, times, errors;
#  - ipc_msg_wait: a receiver waiting for a message, for a type while others
#    come, a sender waiting on a full queue; EINTR; EIDRM;
#  - ipc_pingpong pingpong: a strict two-process ping-pong over semaphores
#    and messages.
# Then ipc_pingpong race, two processes taking a semaphore lock in turns
# the scheduler picks: every seed ends at the right count, one seed gives
# one hash and one output twice, and the interleaving follows the seed
# (seeds 1-6 do not all print the same order).
. "$(dirname "$0")/lib.sh"
if [ "$(id -u)" = 0 ]; then OWN_IPC="unshare --ipc"; else OWN_IPC="unshare --user --map-root-user --ipc"; fi
run_case() {
    local p=$1; shift
    local prog
    prog=$(build $p) || exit 1
    timeout 60 $OWN_IPC "$prog" "$@" >"$TMP/$p.native" || { cat "$TMP/$p.native"; fail "$p failed natively"; }
    [ "$(wc -l <"$TMP/$p.native")" -ge 8 ] || fail "$p printed too little"
    for seed in 1 2 3; do
        timeout 120 "$DSIM" exec --seed $seed -- "$prog" "$@" >"$TMP/$p.dsim" 2>"$TMP/exec.err" ||
            { cat "$TMP/exec.err" "$TMP/$p.dsim"; fail "$p failed under dsim (seed $seed)"; }
        diff "$TMP/$p.native" "$TMP/$p.dsim" >&2 || fail "$p under dsim (seed $seed) differs from native"
    done
    h=$(same_hash_twice 1 "$prog" "$@") || exit 1
    note "$p $* as natively on seeds 1-3; hash $h twice"
}
run_case ipc_shm
run_case ipc_sem
run_case ipc_sem_wait
run_case ipc_msg
run_case ipc_msg_wait
run_case ipc_pingpong pingpong 10

prog=$(build ipc_pingpong) || exit 1
for seed in 1 2 3 4 5 6; do
    timeout 120 "$DSIM" exec --seed $seed -- "$prog" race 8 >"$TMP/race.$seed" 2>"$TMP/exec.err" ||
        { cat "$TMP/exec.err"; fail "race failed under dsim (seed $seed)"; }
    [ "$(tail -n 1 "$TMP/race.$seed")" = "final 16" ] || { cat "$TMP/race.$seed"; fail "race: seed $seed lost a count"; }
    [ "$(grep -c '^parent saw' "$TMP/race.$seed")" = 8 ] && [ "$(grep -c '^child saw' "$TMP/race.$seed")" = 8 ] ||
        fail "race: seed $seed: each process should take the lock 8 times"
done
h=$(same_hash_twice 1 "$prog" race 8) || exit 1
cmp -s "$TMP/a.out" "$TMP/race.1" || fail "race: seed 1 printed another order on a later run"
orders=$(for s in 1 2 3 4 5 6; do md5sum <"$TMP/race.$s"; done | sort -u | wc -l)
[ "$orders" -ge 2 ] || fail "race: seeds 1-6 all took the lock in the same order"
note "race: $orders orders over seeds 1-6, each ending at 16; seed 1 hash $h twice"
