#!/usr/bin/python3
"""bank.py HOST TRANSFERS: a small banking workload for PostgreSQL.

Makes 10 accounts of 1000 each (once), then makes TRANSFERS transfers, one
transaction each: money moves between two accounts and the transfer is
recorded in a table. Prints "ack I" when transfer I's COMMIT returned. A
lost connection (the server crashed) leaves that transfer's fate unknown;
the client reconnects, checks that every transfer acknowledged so far is
still there ("LOST I" if not) and that the balances still add up ("total
T"), and goes on. At the end it prints "have I" for every transfer the
database holds, and "bad ..." for an account whose balance is not 1000
plus what the recorded transfers moved to it. TCP keepalives (1 s idle, 3
probes 1 s apart) end a wait on a server that crashed meanwhile."""
import random
import sys
import time

import psycopg2

ACCOUNTS, START = 10, 1000
host, transfers = sys.argv[1], int(sys.argv[2])
rng = random.Random(7)
acked = []


def say(*words):
    print(*words, flush=True)


def connect():
    while True:
        try:
            # Keepalives: a crashed server never answers a query in
            # flight, and only a probe finds that out.
            return psycopg2.connect(host=host, user="postgres", dbname="postgres", connect_timeout=5,
                                    keepalives=1, keepalives_idle=1, keepalives_interval=1, keepalives_count=3)
        except psycopg2.OperationalError:
            time.sleep(0.2)


def run(fn):
    """Runs fn(cursor) in one transaction: True if it committed, False if
    the connection was lost on the way (its fate unknown); then it has
    reconnected."""
    global conn
    try:
        with conn:
            with conn.cursor() as cur:
                fn(cur)
        return True
    except (psycopg2.OperationalError, psycopg2.InterfaceError):
        try:
            conn.close()
        except psycopg2.Error:
            pass
        conn = connect()
        return False


def setup(cur):
    cur.execute("CREATE TABLE IF NOT EXISTS accounts (id int PRIMARY KEY, balance bigint NOT NULL)")
    cur.execute("CREATE TABLE IF NOT EXISTS transfers (id int PRIMARY KEY, src int, dst int, amount int)")
    cur.execute("INSERT INTO accounts SELECT g, %s FROM generate_series(1, %s) g ON CONFLICT DO NOTHING",
                (START, ACCOUNTS))


def tables_there(cur):
    """False, after saying so, if the tables the setup made are gone: a
    committed setup was lost."""
    cur.execute("SELECT count(*) FROM pg_tables WHERE tablename IN ('accounts', 'transfers')")
    if cur.fetchone()[0] == 2:
        return True
    say("LOST the tables")
    return False


def recheck(cur):
    if not tables_there(cur):
        sys.exit(0)
    cur.execute("SELECT sum(balance) FROM accounts")
    total = cur.fetchone()[0]
    cur.execute("SELECT id FROM transfers")
    have = {i for (i,) in cur.fetchall()}
    missing = [i for i in acked if i not in have]
    say("after a crash:", len(acked), "acknowledged,", len(missing), "missing")
    say("total", total)
    for i in missing:
        say("LOST", i)


def after_crash():
    while not run(recheck):
        pass


conn = connect()
while not run(setup):
    pass
say("setup")
for i in range(1, transfers + 1):
    src, dst = rng.sample(range(1, ACCOUNTS + 1), 2)
    amount = rng.randint(1, 100)

    def transfer(cur):
        cur.execute("UPDATE accounts SET balance = balance - %s WHERE id = %s", (amount, src))
        cur.execute("UPDATE accounts SET balance = balance + %s WHERE id = %s", (amount, dst))
        cur.execute("INSERT INTO transfers VALUES (%s, %s, %s, %s)", (i, src, dst, amount))

    if run(transfer):
        acked.append(i)
        say("ack", i)
    else:
        after_crash()


def final(cur):
    if not tables_there(cur):
        return
    cur.execute("SELECT sum(balance) FROM accounts")
    say("total", cur.fetchone()[0])
    cur.execute("SELECT id FROM transfers ORDER BY id")
    for (i,) in cur.fetchall():
        say("have", i)
    cur.execute("""SELECT a.id, a.balance, %s + coalesce((SELECT sum(amount) FROM transfers WHERE dst = a.id), 0)
                   - coalesce((SELECT sum(amount) FROM transfers WHERE src = a.id), 0)
                   FROM accounts a ORDER BY a.id""", (START,))
    for acc, balance, expected in cur.fetchall():
        if balance != expected:
            say("bad account", acc, "balance", balance, "expected", expected)


while not run(final):
    pass
