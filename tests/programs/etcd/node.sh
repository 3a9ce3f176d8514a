#!/bin/sh
# node.sh NAME: one member of the 3-node etcd cluster e1, e2, e3 (names
# from the machines' /etc/hosts), its data on the machine's own disk. The
# same command restarts it after a crash: etcd then recovers from its WAL.
exec etcd --name "$1" --data-dir /var/lib/etcd-sim \
  --listen-client-urls http://0.0.0.0:2379 --advertise-client-urls "http://$1:2379" \
  --listen-peer-urls http://0.0.0.0:2380 --initial-advertise-peer-urls "http://$1:2380" \
  --initial-cluster e1=http://e1:2380,e2=http://e2:2380,e3=http://e3:2380 \
  --initial-cluster-state new --heartbeat-interval 100 --election-timeout 1000 \
  --logger zap --log-level error
