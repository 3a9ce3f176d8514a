#!/usr/bin/python3
"""idalloc_check: did the id allocator hand out any id twice?

    idalloc_check.py FILE...

Each FILE is an `idalloc.py client` output: lines "NAME ID". Prints
"duplicate id N (given to X and Y)" for every id seen more than once, in
increasing order, and exits 1; otherwise prints "ok: N ids, all distinct" and
exits 0. Exit 2 on an unreadable file or a malformed line. Opens no socket.
"""
import sys


def main(paths):
    if not paths:
        print(__doc__, file=sys.stderr)
        return 2
    owners = {}     # id -> list of "NAME" (with the file when names repeat)
    total = 0
    for path in paths:
        try:
            with open(path) as f:
                lines = f.read().splitlines()
        except OSError as e:
            print(f"cannot read {path}: {e}")
            return 2
        for n, line in enumerate(lines, 1):
            if not line.strip():
                continue
            w = line.split()
            if len(w) != 2 or not w[1].isdigit():
                print(f"{path}:{n}: malformed line: {line!r}")
                return 2
            owners.setdefault(int(w[1]), []).append(w[0])
            total += 1
    dups = sorted(i for i, who in owners.items() if len(who) > 1)
    for i in dups:
        print(f"duplicate id {i} (given to {' and '.join(owners[i])})")
    if dups:
        return 1
    print(f"ok: {total} ids, all distinct")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
