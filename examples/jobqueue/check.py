#!/usr/bin/python3
"""check: was every job paid for exactly once? (the [check] of examples/jobqueue)

    check.py BANK.stdout JOBS

BANK.stdout holds the bank's "credit J by W" lines. Prints "job J credited
K times (by W1, W2)" or "job J never credited" for each job of 1..JOBS not
credited exactly once and exits 1; otherwise prints "ok: ..." and exits 0.
"""
import sys

by = {}
with open(sys.argv[1]) as f:
    for line in f:
        _, job, _, who = line.split()
        by.setdefault(int(job), []).append(who)
bad = False
for j in range(1, int(sys.argv[2]) + 1):
    who = by.get(j, [])
    if len(who) != 1:
        bad = True
        print(f"job {j} never credited" if not who else
              f"job {j} credited {len(who)} times (by {', '.join(who)})")
if not bad:
    print(f"ok: {sys.argv[2]} jobs, each credited once")
sys.exit(1 if bad else 0)
