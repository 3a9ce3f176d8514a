#!/bin/sh
# client.sh N: puts k1..kN through any member (etcdctl), printing "ack I"
# for each acknowledged put; then, once the cluster answers, "have KEY" for
# every key it holds. An acknowledged key missing at the end was lost.
EP=http://e1:2379,http://e2:2379,http://e3:2379
i=1
while [ "$i" -le "$1" ]; do
  if etcdctl --endpoints=$EP --command-timeout=3s --dial-timeout=1s put "k$i" "v$i" >/dev/null 2>&1; then
    echo "ack $i"
  fi
  i=$((i + 1))
done
sleep 5
until etcdctl --endpoints=$EP --command-timeout=3s get --prefix k --keys-only >/tmp/keys 2>/dev/null; do
  sleep 1
done
grep . /tmp/keys | sed 's/^/have /'
