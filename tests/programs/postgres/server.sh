#!/bin/sh
# server.sh DATADIR [SETTING=VALUE...]: PostgreSQL 15 on the machine's
# disk, listening on TCP port 5432, as the postgres user when started as
# root (the server refuses root). The same command restarts it after a
# crash: it then recovers from its write-ahead log.
d=$1
shift
for s in "$@"; do set -- "$@" -c "$s"; shift; done
pg=/usr/lib/postgresql/15/bin/postgres
as=
[ "$(id -u)" = 0 ] && as="setpriv --reuid=postgres --regid=postgres --init-groups"
exec $as $pg -D "$d" -c listen_addresses='*' -c unix_socket_directories='' \
  -c max_connections=10 -c shared_buffers=16MB "$@"
