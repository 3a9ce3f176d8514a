# lost_acks.awk NAME.stdout: the check of the crash tests' stores. Each
# incarnation prints "recovered N" (records found at start), then "ack I"
# for each record it made durable. A "recovered N" below the last ack
# before it means an acknowledged record was lost: exit 1 (as for a store
# that never started).
/^ack / { a = $2 }
/^recovered / { started = 1; if ($2 < a) { print "LOST: acked " a ", recovered " $2; bad = 1 } }
END { if (!started) { print "the store never started"; bad = 1 }; exit bad }
