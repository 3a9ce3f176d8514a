#!/bin/sh
# server.sh FSYNC: redis-server on the machine's own disk, its append-only
# file synced as FSYNC says (always, everysec, no). The same command
# restarts it after a crash: redis then replays its AOF.
mkdir -p /var/lib/redis-sim
exec redis-server --bind 0.0.0.0 --port 6379 --protected-mode no --save "" \
  --appendonly yes --appendfsync "$1" --dir /var/lib/redis-sim
