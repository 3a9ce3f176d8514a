#!/bin/sh
# client.sh N: sets k1..kN on the machine db with redis-cli, 100 ms apart,
# printing "ack I" for each OK; then, once db answers again, "have KEY" for
# every key it holds. An acknowledged key missing at the end was lost.
i=1
while [ "$i" -le "$1" ]; do
  if [ "$(redis-cli -h db set "k$i" "v$i" 2>/dev/null)" = OK ]; then echo "ack $i"; fi
  i=$((i + 1))
  sleep 0.1
done
sleep 3
until redis-cli -h db ping >/dev/null 2>&1; do sleep 0.5; done
redis-cli -h db keys 'k*' | sed 's/^/have /'
