"""sqlite_kv.py SYNC DB: a store on SQLite in rollback-journal (DELETE)
mode with PRAGMA synchronous=SYNC. At start it counts its rows and prints
"recovered N"; then it inserts rows N+1 .. 40, one transaction each,
printing "ack I" after each COMMIT. SQLite documents that FULL may lose the
last committed transaction to a power cut: the commit is the journal's
unlink, which only EXTRA makes durable with a directory fsync."""
import os, sqlite3, sys, time
sync, path = sys.argv[1], sys.argv[2]
os.makedirs(os.path.dirname(path), exist_ok=True)
db = sqlite3.connect(path, isolation_level=None)
db.execute("PRAGMA journal_mode=DELETE")
db.execute("PRAGMA synchronous=%s" % sync)
db.execute("CREATE TABLE IF NOT EXISTS kv (k INTEGER PRIMARY KEY)")
n = db.execute("SELECT count(*) FROM kv").fetchone()[0]
print("recovered", n, flush=True)
for i in range(n + 1, 41):
    db.execute("BEGIN")
    db.execute("INSERT INTO kv VALUES (?)", (i,))
    db.execute("COMMIT")
    print("ack", i, flush=True)
    time.sleep(0.1)
