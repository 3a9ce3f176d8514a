#!/bin/bash
# Machine names resolve to their addresses (10.0.0.N in declaration order, or
# address =) through each machine's own /etc/hosts, with getent and CPython;
# /etc/hostname is the machine's name. (Connections between machines come
# with the network model; these addresses reach nothing yet.)
. "$(dirname "$0")/lib.sh"
write_conf "$TMP/c.conf" <<'CONF'
[machine db]
command = getent hosts web db; cat /etc/hostname; python3 -c 'import socket; print(socket.gethostbyname("web"), socket.getaddrinfo("db", 80, socket.AF_INET)[0][4][0])'
[machine web]
command = cat /etc/hostname
address = 10.0.0.42
CONF
timeout -k 5 60 "$DSIM" run "$TMP/c.conf" --seeds 1 --output "$TMP/o" >"$TMP/run.out" || { cat "$TMP/run.out"; fail "run failed"; }
want=$(printf '10.0.0.42       web\n10.0.0.1        db\ndb\n10.0.0.42 10.0.0.1')
[ "$(cat "$TMP/o/seed-1/db.stdout")" = "$want" ] || fail "db resolved: $(cat "$TMP/o/seed-1/db.stdout")"
[ "$(cat "$TMP/o/seed-1/web.stdout")" = web ] || fail "web's /etc/hostname: $(cat "$TMP/o/seed-1/web.stdout")"
[ "$(cat /etc/hostname)" != db ] || fail "the host's /etc/hostname changed"
printf '[machine a]\ncommand = true\naddress = 10.0.0.2\n[machine b]\ncommand = true\n' >"$TMP/dup.conf"
timeout -k 5 60 "$DSIM" run "$TMP/dup.conf" --seeds 1 2>"$TMP/err"; [ $? = 2 ] || fail "duplicate address accepted"
grep -q 'dup.conf:4: machines "a" and "b" have the same address 10.0.0.2' "$TMP/err" || fail "error: $(cat "$TMP/err")"
