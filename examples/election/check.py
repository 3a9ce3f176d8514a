#!/usr/bin/python3
"""check: at most one leader per term? (the [check] of examples/election)

    check.py NODE.stdout...

Each file holds a node's "NAME: leader of term T" lines. Prints "term T: 2
leaders, n1 and n4" for each term with more than one leader and exits 1;
exits 1 too if no node ever led; otherwise prints "ok: ..." and exits 0.
"""
import sys

leaders = {}
for path in sys.argv[1:]:
    with open(path) as f:
        for line in f:
            name, _, _, _, term = line.split()
            leaders.setdefault(int(term), []).append(name.rstrip(":"))
bad = {t: who for t, who in sorted(leaders.items()) if len(who) > 1}
for t, who in bad.items():
    print(f"term {t}: {len(who)} leaders, {' and '.join(who)}")
if not leaders:
    print("no node ever became a leader")
elif not bad:
    print(f"ok: {len(leaders)} terms had a leader, one each")
sys.exit(1 if bad or not leaders else 0)
