/* The values of cluster.conf: durations, sizes, ranges, booleans and names.
 * Pure functions, shared by the parser and the command line. */
#include "base/values.h"
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static bool is_digit(char c) { return c >= '0' && c <= '9'; }
static bool is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r'; }

/* Reads the decimal integer at *p, advancing *p. -1 on no digits or overflow. */
int parse_uint(const char **p, uint64_t *out)
{
    const char *s = *p;
    uint64_t v = 0;
    if (!is_digit(*s))
        return -1;
    for (; is_digit(*s); s++) {
        unsigned d = (unsigned)(*s - '0');
        if (v > (UINT64_MAX - d) / 10)
            return -1;
        v = v * 10 + d;
    }
    *p = s;
    *out = v;
    return 0;
}

int parse_duration(const char *s, uint64_t *out_ns)
{
    uint64_t whole, frac = 0, den = 1, unit;
    if (!s || !out_ns || parse_uint(&s, &whole) < 0)
        return -1;
    if (*s == '.') {
        const char *fs = ++s, *fe;
        if (!is_digit(*s))
            return -1;
        while (is_digit(*s))
            s++;
        fe = s;
        while (fe > fs && fe[-1] == '0')    /* "1.500s" is "1.5s" */
            fe--;
        /* No unit turns 19 or more significant decimals into whole ns. */
        if (fe - fs > 18)
            return -1;
        for (; fs < fe; fs++) {
            frac = frac * 10 + (uint64_t)(*fs - '0');
            den *= 10;
        }
    }
    if (*s == '\0' || strcmp(s, "s") == 0)
        unit = NS_PER_S;
    else if (strcmp(s, "ns") == 0)
        unit = 1;
    else if (strcmp(s, "us") == 0)
        unit = NS_PER_US;
    else if (strcmp(s, "ms") == 0)
        unit = NS_PER_MS;
    else if (strcmp(s, "m") == 0)
        unit = 60 * NS_PER_S;
    else if (strcmp(s, "h") == 0)
        unit = 3600 * NS_PER_S;
    else
        return -1;

    unsigned __int128 total = (unsigned __int128)whole * unit;
    unsigned __int128 part = (unsigned __int128)frac * unit;
    if (part % den != 0)        /* not a whole number of nanoseconds */
        return -1;
    total += part / den;
    if (total > UINT64_MAX)
        return -1;
    *out_ns = (uint64_t)total;
    return 0;
}

int parse_size(const char *s, uint64_t *out_bytes)
{
    uint64_t v;
    unsigned shift;
    if (!s || !out_bytes || parse_uint(&s, &v) < 0)
        return -1;
    switch (*s) {
    case '\0': shift = 0; break;
    case 'K': case 'k': shift = 10; break;
    case 'M': case 'm': shift = 20; break;
    case 'G': case 'g': shift = 30; break;
    case 'T': case 't': shift = 40; break;
    default: return -1;
    }
    if (*s && s[1] != '\0')
        return -1;
    if (shift && v > (UINT64_MAX >> shift))
        return -1;
    *out_bytes = v << shift;
    return 0;
}

int parse_bool(const char *s, bool *out)
{
    static const char *const yes[] = { "true", "yes", "1" };
    static const char *const no[] = { "false", "no", "0" };
    for (size_t i = 0; i < sizeof yes / sizeof yes[0]; i++) {
        if (strcasecmp(s, yes[i]) == 0) {
            *out = true;
            return 0;
        }
        if (strcasecmp(s, no[i]) == 0) {
            *out = false;
            return 0;
        }
    }
    return -1;
}

bool valid_machine_name(const char *s)
{
    if (!is_alpha(*s) && !is_digit(*s))
        return false;
    for (s++; *s; s++)
        if (!is_alpha(*s) && !is_digit(*s) && *s != '_' && *s != '.' && *s != '-')
            return false;
    return true;
}

/* Length of the identifier [A-Za-z_][A-Za-z0-9_]* at the start of s (0: none). */
size_t ident_len(const char *s)
{
    size_t n = 0;
    if (!is_alpha(s[0]) && s[0] != '_')
        return 0;
    while (is_alpha(s[n]) || is_digit(s[n]) || s[n] == '_')
        n++;
    return n;
}

/* --------------------------------------------------------------- configs */

int parse_signed_duration(const char *s, int64_t *out_ns)
{
    uint64_t v;
    bool neg = *s == '-';
    if (parse_duration(s + neg, &v) < 0 || v > (uint64_t)INT64_MAX) return -1;
    *out_ns = neg ? -(int64_t)v : (int64_t)v;
    return 0;
}

/* "1s..5s" or "-5s..5s" or a single duration: 0, or -1 if malformed or lo > hi. */
int parse_range(const char *s, int64_t *lo, int64_t *hi)
{
    const char *dots = strstr(s, "..");
    if (!dots) {
        if (parse_signed_duration(s, lo) < 0) return -1;
        *hi = *lo;
        return 0;
    }
    char first[64];
    if ((size_t)(dots - s) >= sizeof first) return -1;
    memcpy(first, s, (size_t)(dots - s));
    first[dots - s] = 0;
    if (parse_signed_duration(first, lo) < 0 || parse_signed_duration(dots + 2, hi) < 0 || *lo > *hi) return -1;
    return 0;
}

const char *percent_str(uint32_t ppm, char *buf, size_t size)
{
    unsigned frac = ppm % 10000, digits = 4;
    while (frac && frac % 10 == 0) {
        frac /= 10;
        digits--;
    }
    if (frac) snprintf(buf, size, "%u.%0*u%%", ppm / 10000, (int)digits, frac);
    else snprintf(buf, size, "%u%%", ppm / 10000);
    return buf;
}

/* Fixed-width decimal field of n digits at s: its value, or -1. */
static int digits(const char *s, int n)
{
    int v = 0;
    for (int i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9') return -1;
        v = v * 10 + (s[i] - '0');
    }
    return v;
}

/* Days from 1970-01-01 to y-m-d (proleptic Gregorian). */
static int64_t days_from_civil(int64_t y, int m, int d)
{
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    int64_t yoe = y - era * 400;
    int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

int parse_epoch(const char *s, int64_t *out)
{
    size_t len = strlen(s);
    if (len != 10 && len != 20) return -1;
    if (s[4] != '-' || s[7] != '-') return -1;
    int y = digits(s, 4), m = digits(s + 5, 2), d = digits(s + 8, 2), hh = 0, mm = 0, ss = 0;
    if (len == 20) {
        if (s[10] != 'T' || s[13] != ':' || s[16] != ':' || s[19] != 'Z') return -1;
        hh = digits(s + 11, 2), mm = digits(s + 14, 2), ss = digits(s + 17, 2);
    }
    static const int mdays[] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
    if (y < 1970 || y > 2200 || m < 1 || m > 12 || d < 1 || hh < 0 || hh > 23 || mm < 0 || mm > 59 || ss < 0 ||
        ss > 59)
        return -1;
    bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    if (d > mdays[m - 1] + (m == 2 && leap)) return -1;
    *out = days_from_civil(y, m, d) * 86400 + hh * 3600 + mm * 60 + ss;
    return 0;
}

int line_error(char *msg, size_t msglen, int line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, msglen, fmt, ap);
    va_end(ap);
    return line;
}
