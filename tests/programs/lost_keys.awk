# lost_keys.awk client.stdout: the check of the cluster tests' clients. The
# client prints "ack I" for each acknowledged write of key kI, then "have K"
# for every key the service holds at the end. An acked key missing at the
# end was lost; no ack at all is a failure too.
/^ack / { acked[$2] = 1; n++ }
/^have k/ { have[substr($2, 2)] = 1 }
END {
    for (k in acked) if (!(k in have)) { print "LOST k" k; bad = 1 }
    if (n == 0) { print "no acks"; bad = 1 }
    exit bad
}
