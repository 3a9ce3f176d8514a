/* The trace: one canonical text line per event, whose binary form is folded
 * into a running xxh3-128 hash (the run's fingerprint), optionally written
 * to a file, and the last few kept in memory for failure reports. Knows
 * nothing of ptrace. */
#ifndef DSIM_TRACE_H
#define DSIM_TRACE_H
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stddef.h>

struct trace;

/* out may be NULL (hash only). ring = how many recent events to keep. */
struct trace *trace_new(FILE *out, size_t ring);
void trace_free(struct trace *t);

/* One event. The line is "<time> <machine> <tid> <text>"; time is printed as
 * seconds.nanoseconds of virtual time. text must not contain a newline. */
void trace_event(struct trace *t, uint64_t vtime_ns, const char *machine, int tid,
                 const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* An event given as a compact record instead of text: the hash takes the
 * record's bytes, and fmt makes its text (the part after "TIME MACHINE TID
 * ", at most TRACE_TEXT_MAX bytes with the NUL, no newline) only when
 * someone reads it: a trace file, a tap, the ring. The bytes must decide
 * the text, and two records with one text must be one record, so that the
 * hash means what the text says. */
#define TRACE_TEXT_MAX 4096
typedef void (*trace_fmt_fn)(const void *rec, size_t len, char *buf, size_t cap);
void trace_record(struct trace *t, uint64_t vtime_ns, const char *machine, int tid, const void *rec, size_t len,
                  trace_fmt_fn fmt);
/* A note for the reader of the file ("  | text"), after the last event: not
 * hashed and not kept for reports, so it never changes a run's identity. */
void trace_note(struct trace *t, const char *text);
/* Whether notes go anywhere (a trace file): else there is no need to make them. */
bool trace_has_notes(const struct trace *t);
/* A tap sees every event line as it is made (without its newline), with
 * its index (0 for the run's first event): dsim verify compares a run
 * with earlier ones as it goes. fn NULL removes it. */
typedef void (*trace_tap_fn)(void *arg, uint64_t index, const char *line);
void trace_set_tap(struct trace *t, trace_tap_fn fn, void *arg);
/* Fold extra bytes into the hash (e.g. a machine's captured output). */
void trace_hash_bytes(struct trace *t, const void *data, size_t len);
uint64_t trace_count(const struct trace *t);
/* 32 lowercase hex digits + NUL. */
void trace_hash_hex(const struct trace *t, char out[33]);
/* The i-th most recent kept line, 0 = newest; NULL past the end. */
const char *trace_recent(const struct trace *t, size_t i);
/* One line of a written trace, split in place (the fields point into it). */
struct trace_line {
    uint64_t vtime_ns;
    const char *machine;    /* NUL-terminated */
    int tid;
    const char *text;       /* the event, without the newline */
    char call[64];          /* the syscall or event name: text up to '(' or ' ' */
};
/* Parses and splits line (modified). 0, or -1 if it is not a trace line. */
int trace_parse_line(char *line, struct trace_line *out);
/* Without modifying it: where a line's "MACHINE TID" starts, and its event
 * text (after the third field); NULL if it has fewer than four fields. */
const char *trace_line_text(const char *line, const char **machine);
/* Whether an event is a read of the clock (clock_gettime, gettimeofday,
 * time, rdtsc), whose value follows the schedule. */
bool trace_is_clock_read(const char *text);
#endif
