/* Trace events in compact binary form (trace/trace.h, trace_record): a
 * syscall as its number and canonical arguments and how it ended, a value
 * read (rdtsc, rdrand) as its name and value. The hash takes these bytes;
 * the text is made from them only when someone reads it (values: world.h's
 * trace_value). Internal to the supervisor. */
#ifndef DSIM_CALLREC_H
#define DSIM_CALLREC_H
#include <stddef.h>
#include <stdint.h>
#include "world/world.h"

/* Big enough for a call: kind, number, six arguments of which each may be
 * a 95-byte string, and the end. */
#define CALL_REC_MAX 640

enum call_end { CALL_NO_RESULT, CALL_BLOCKS, CALL_FENCE, CALL_RESULT };

/* t's pending call without its end into rec (CALL_REC_MAX bytes): its
 * length. Reads the strings the call names from the tracee. */
size_t call_rec_encode(struct thread *t, unsigned char *rec);
/* Appends how the call ended (result used with CALL_RESULT only); the
 * record's new length. */
size_t call_rec_end(unsigned char *rec, size_t len, enum call_end end, long result);
/* The text of a call or value record: "name(args) = result" and the like. */
void callrec_format(const void *rec, size_t len, char *buf, size_t cap);
#endif
