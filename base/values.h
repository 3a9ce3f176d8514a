/* Value parsers of cluster.conf (values.c). */
#ifndef DSIM_VALUES_H
#define DSIM_VALUES_H
#include <stdbool.h>
#include <stddef.h>

#include <stdint.h>

#define NS_PER_US 1000ULL
#define NS_PER_MS 1000000ULL
#define NS_PER_S 1000000000ULL
#define MAX_MACHINE_NAME 63

bool is_blank(char c);
/* Writes a config error into msg and returns its line (the readers'
 * "return line_error(msg, len, line, ...)"). */
int line_error(char *msg, size_t msglen, int line, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* Decimal digits at *p into out, advancing *p: 0, or -1 on none or overflow. */
int parse_uint(const char **p, uint64_t *out);
/* true/false/yes/no/1/0, any case: 0, or -1. */
int parse_bool(const char *s, bool *out);
/* A UTC date, YYYY-MM-DD or YYYY-MM-DDTHH:MM:SSZ, years 1970 to 2200, as
 * Unix seconds: 0, or -1. */
int parse_epoch(const char *s, int64_t *out);
/* [A-Za-z0-9][A-Za-z0-9_.-]*, at most 63 characters. */
bool valid_machine_name(const char *s);
/* Length of the identifier ([A-Za-z_][A-Za-z0-9_]*) starting s. */
size_t ident_len(const char *s);
/* "30s", "500ms", "1m", "250us", "10ns", "2h"; a bare number is seconds.
 * Returns 0 on success, -1 on a malformed or overflowing value. */
int parse_duration(const char *s, uint64_t *out_ns);
/* parse_duration with an optional leading '-'. */
int parse_signed_duration(const char *s, int64_t *out_ns);
/* "1s..5s", "-5s..5s" or one duration. 0, or -1. */
int parse_range(const char *s, int64_t *lo, int64_t *hi);
/* "4G", "512M", "1024K", "4096" (bytes). Returns 0 or -1. */
int parse_size(const char *s, uint64_t *out_bytes);
/* ppm as a percentage, "30%" or "0.25%": what parse_percent_ppm reads. */
const char *percent_str(uint32_t ppm, char *buf, size_t size);
#endif
