#!/bin/bash
# signalfd made real (it was a fence). Each program runs natively and under
# dsim with the same output on seeds 1-3, and seed 1 gives one hash twice:
#  - signalfd_read: one read takes every pending signal of the mask that
#    fits, the thread's own first, with their siginfo; EAGAIN, EINVAL for a
#    short buffer, SFD_CLOEXEC and SFD_NONBLOCK, a second signalfd() on the
#    fd changing its mask, signalfd4's errors;
#  - signalfd_wait: poll, select and epoll see it readable only when the
#    thread asking has a signal of its mask pending (a signal sent to
#    another thread is that thread's); a signalfd in an epoll set woken by
#    another thread's kill; blocking reads, EINTR or a restart for a handled
#    signal outside the mask; edge-triggered events;
#  - signalfd_sources: what a POSIX timer, a child's exit (SIGCHLD), a kill
#    from another process, a write to a pipe with no reader (SIGPIPE), alarm
#    and an interval timer deliver through it;
#  - signalfd_fork: inherited over fork (each process reads its own
#    signals) and exec (a signal pending at exec is read after it; an
#    SFD_CLOEXEC one is gone), and two processes each waiting in epoll on
#    its own signalfd waking each other with kill, as PostgreSQL's latches.
. "$(dirname "$0")/lib.sh"
for p in signalfd_read signalfd_wait signalfd_sources signalfd_fork; do
    prog=$(build $p)
    timeout 60 "$prog" >"$TMP/$p.native" || { cat "$TMP/$p.native"; fail "$p failed natively"; }
    [ "$(wc -l <"$TMP/$p.native")" -ge 8 ] || fail "$p printed too little"
    for seed in 1 2 3; do
        timeout 120 "$DSIM" exec --seed $seed -- "$prog" >"$TMP/$p.dsim" 2>"$TMP/exec.err" ||
            { cat "$TMP/exec.err" "$TMP/$p.dsim"; fail "$p failed under dsim (seed $seed)"; }
        diff "$TMP/$p.native" "$TMP/$p.dsim" >&2 || fail "$p under dsim (seed $seed) differs from native"
    done
    h=$(same_hash_twice 1 "$prog") || exit 1
    note "$p as natively on seeds 1-3; hash $h twice"
done
