#!/usr/bin/python3
"""jobqueue_check: was every job credited exactly once?

    jobqueue_check.py BANK_STDOUT N

BANK_STDOUT is the output of `jobqueue.py bank`: lines "credit J by W".
Prints "job J credited K times (by W1, W2)" for every job 1..N credited
more than once and "job J never credited" for every one not credited, and
exits 1; otherwise prints "ok: N jobs, each credited once" and exits 0.
Exit 2 on an unreadable file or a malformed line. Opens no socket.
"""
import sys


def main(args):
    if len(args) != 2 or not args[1].isdigit():
        print(__doc__, file=sys.stderr)
        return 2
    path, n = args[0], int(args[1])
    by = {}
    try:
        with open(path) as f:
            lines = f.read().splitlines()
    except OSError as e:
        print(f"cannot read {path}: {e}")
        return 2
    for k, line in enumerate(lines, 1):
        w = line.split()
        if len(w) != 4 or w[0] != "credit" or not w[1].isdigit() or w[2] != "by":
            print(f"{path}:{k}: malformed line: {line!r}")
            return 2
        by.setdefault(int(w[1]), []).append(w[3])
    bad = False
    for j in range(1, n + 1):
        who = by.get(j, [])
        if len(who) != 1:
            bad = True
            print(f"job {j} never credited" if not who else f"job {j} credited {len(who)} times (by {', '.join(who)})")
    if bad:
        return 1
    print(f"ok: {n} jobs, each credited once")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
