/* A network event's trace record: the compact bytes the run's hash takes
 * (trace_record), and the line a trace shows, made only when someone reads
 * it: "net KIND FROM SRC > TO DST[ WHAT] LEN". Also the simulated address
 * and its text, which the record and the socket table share. Pure,
 * unit-tested alone. */
#ifndef DSIM_NETREC_H
#define DSIM_NETREC_H
#include <stddef.h>
#include <stdint.h>

/* A simulated address. ::1 is kept apart from 127.0.0.1; IPv4-mapped IPv6
 * addresses are their IPv4 address. */
enum addr_kind { ADDR_ANY, ADDR_V4, ADDR_V6_LOOP };
struct saddr {
    enum addr_kind kind;
    uint32_t ip;            /* host order; ADDR_V4 only */
    uint16_t port;
};

/* Pretty "10.0.0.1:7000", "*:7000" or "[::1]:7000" into buf. */
const char *saddr_str(const struct saddr *a, char *buf, size_t size);

/* One event. kind and what are texts ("data"; what NULL or "" for none);
 * machine names hold no NUL. The record's bytes decide its line, and two
 * records with one line are one record. */
struct netrec_event {
    const char *kind;
    const char *from, *to;
    struct saddr src, dst;
    const char *what;
    uint64_t len;
};
#define NETREC_MAX 512
/* Encodes e into buf (NETREC_MAX bytes); the record's length, or 0 if its
 * names do not fit. */
size_t netrec_encode(const struct netrec_event *e, unsigned char *buf);
/* The record's line (a trace_fmt_fn): at most cap bytes with the NUL. */
void netrec_format(const void *rec, size_t len, char *buf, size_t cap);
#endif
