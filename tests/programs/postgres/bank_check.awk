# bank_check.awk client.stdout: the check of t_postgres. Every transfer
# whose COMMIT returned ("ack I") must still be there after every crash
# ("LOST I" says it was not) and at the end ("have I"); every total the
# client read must be 10 accounts of 1000; no account may disagree with the
# transfers recorded.
/^ack / { acked[$2] = 1; n++ }
/^have / { have[$2] = 1 }
/^total / { totals++; if ($2 != 10000) { print "TOTAL " $2; bad = 1 } }
/^LOST / || /^bad / { print; bad = 1 }
END {
    for (i in acked) if (!(i in have)) { print "LOST transfer " i " at the end"; bad = 1 }
    if (n == 0) { print "no transfer committed"; bad = 1 }
    if (totals == 0) { print "no total read"; bad = 1 }
    exit bad
}
