#!/usr/bin/python3
"""check: were the ids unique? (the [check] of examples/idalloc)

    check.py FILE...

Each FILE is a client's output: lines "NAME ID". Prints "duplicate id N
(given to X and Y)" for each id handed out twice and exits 1; otherwise
prints "ok: N ids, all distinct" and exits 0.
"""
import sys

owners = {}
for path in sys.argv[1:]:
    with open(path) as f:
        for line in f:
            name, ident = line.split()
            owners.setdefault(int(ident), []).append(name)
dups = sorted(i for i, who in owners.items() if len(who) > 1)
for i in dups:
    print(f"duplicate id {i} (given to {' and '.join(owners[i])})")
if not dups:
    print(f"ok: {sum(map(len, owners.values()))} ids, all distinct")
sys.exit(1 if dups else 0)
