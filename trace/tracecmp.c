#include "trace/tracecmp.h"
#include "trace/trace.h"
#include <stdlib.h>
#include <string.h>

static void *xmalloc_or_die(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) { fputs("dsim: out of memory\n", stderr); abort(); }
    return p;
}

static char *xstrdup(const char *s)
{
    size_t n = strlen(s) + 1;
    return memcpy(xmalloc_or_die(n), s, n);
}

/* ---- outside-read notes ---- */

/* C escapes, so that a path with blanks, quotes or newlines stays one field
 * of one line. Returns the bytes written (without the NUL). */
static size_t escape(char *out, size_t len, const char *s, size_t n)
{
    size_t o = 0;
    for (size_t i = 0; i < n && o + 5 < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\') { out[o++] = '\\'; out[o++] = (char)c; }
        else if (c == '\n') { out[o++] = '\\'; out[o++] = 'n'; }
        else if (c == '\t') { out[o++] = '\\'; out[o++] = 't'; }
        else if (c < 0x20 || c == 0x7f) o += (size_t)snprintf(out + o, len - o, "\\x%02x", c);
        else out[o++] = (char)c;
    }
    if (len) out[o < len ? o : len - 1] = 0;
    return o;
}

char *outside_note_format(char *buf, size_t len, const char *machine, int tid, const char *path, const char *desc)
{
    char esc[4 * 4096 + 8];
    escape(esc, sizeof esc, path, strlen(path));
    snprintf(buf, len, OUTSIDE_NOTE "%s %d \"%s\" %s", machine, tid, esc, desc);
    return buf;
}

static int hexval(char c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* The quoted, escaped string at s ('"' first) into a malloc'd copy; *end
 * past the closing quote. NULL if malformed. */
static char *unquote(const char *s, const char **end)
{
    if (*s != '"') return NULL;
    char *out = xmalloc_or_die(strlen(s)), *o = out;
    for (s++; *s && *s != '"'; s++) {
        if (*s != '\\') { *o++ = *s; continue; }
        s++;
        if (*s == 'n') *o++ = '\n';
        else if (*s == 't') *o++ = '\t';
        else if (*s == 'x' && hexval(s[1]) >= 0 && hexval(s[2]) >= 0) { *o++ = (char)(hexval(s[1]) * 16 + hexval(s[2])); s += 2; }
        else if (*s == '"' || *s == '\\') *o++ = *s;
        else { free(out); return NULL; }
    }
    if (*s != '"') { free(out); return NULL; }
    *o = 0;
    *end = s + 1;
    return out;
}

int outside_note_parse(const char *text, struct outside_read *r)
{
    memset(r, 0, sizeof *r);
    if (strncmp(text, OUTSIDE_NOTE, strlen(OUTSIDE_NOTE))) return -1;
    const char *p = text + strlen(OUTSIDE_NOTE);
    int n = 0;
    if (sscanf(p, "%63s %d %n", r->machine, &r->tid, &n) < 2 || !n) return -1;
    const char *end;
    r->path = unquote(p + n, &end);
    if (!r->path) return -1;
    r->desc = xstrdup(*end == ' ' ? end + 1 : end);
    return 0;
}

void outside_read_free(struct outside_read *r)
{
    free(r->path);
    free(r->desc);
    r->path = r->desc = NULL;
}

/* ---- reading a trace: events with their notes ---- */

struct reader {
    FILE *f;
    char *look;             /* the next event line, already read */
    bool started;
    uint64_t index;         /* of the next event */
};

struct record { char *event, *result; };

static ssize_t read_line(struct reader *r, char **line, size_t *cap)
{
    ssize_t n = getline(line, cap, r->f);
    if (n > 0 && (*line)[n - 1] == '\n') (*line)[--n] = 0;
    return n;
}

static bool is_note(const char *line) { return !strncmp(line, "  | ", 4); }

/* The next event and its notes; its outside reads are appended to reads.
 * False at the end of the trace. */
static bool next_record(struct reader *r, struct record *out, struct outside_read **reads, size_t *nreads,
                        size_t *capreads)
{
    char *line = NULL;
    size_t cap = 0;
    if (!r->started) {          /* notes before the first event belong to none */
        r->started = true;
        while (read_line(r, &line, &cap) >= 0)
            if (*line && !is_note(line)) { r->look = line; line = NULL; cap = 0; break; }
    }
    out->event = out->result = NULL;
    if (!r->look) { free(line); return false; }
    out->event = r->look;
    r->look = NULL;
    uint64_t idx = r->index++;
    while (read_line(r, &line, &cap) >= 0) {
        if (!*line) continue;
        if (!is_note(line)) { r->look = line; return true; }
        const char *text = line + 4;
        struct outside_read o;
        if (!strncmp(text, "= ", 2)) {
            if (!out->result) out->result = xstrdup(text);
        } else if (outside_note_parse(text, &o) == 0) {
            o.event = idx;
            if (*nreads == *capreads) {
                *capreads = *capreads ? 2 * *capreads : 64;
                struct outside_read *v = realloc(*reads, *capreads * sizeof *v);
                if (!v) abort();
                *reads = v;
            }
            (*reads)[(*nreads)++] = o;
        }
    }
    free(line);
    return true;
}

static void record_free(struct record *r)
{
    free(r->event);
    free(r->result);
    r->event = r->result = NULL;
}

/* Drops the reads noted after events from index on. */
static void cut_reads(struct tc_side *s, uint64_t index)
{
    while (s->nreads > 0 && s->reads[s->nreads - 1].event >= index) outside_read_free(&s->reads[--s->nreads]);
}

static bool same(const char *a, const char *b) { return a && b ? !strcmp(a, b) : a == b; }

static void keep_context(struct tc_diff *d, const char *event)
{
    const char *text = trace_line_text(event, NULL);
    if (text && trace_is_clock_read(text)) return;
    if (d->ncontext == TC_CONTEXT) {
        free(d->context[0]);
        memmove(d->context, d->context + 1, (TC_CONTEXT - 1) * sizeof *d->context);
        d->ncontext--;
    }
    d->context[d->ncontext++] = xstrdup(event);
}

int tracecmp(FILE *a, FILE *b, struct tc_diff *d)
{
    memset(d, 0, sizeof *d);
    if (!a || !b || fflush(a) || fflush(b)) return -1;
    rewind(a);
    rewind(b);
    struct reader ra = { .f = a }, rb = { .f = b };
    size_t cap[2] = { 0, 0 };
    for (;;) {
        struct record x, y;
        bool hx = next_record(&ra, &x, &d->side[0].reads, &d->side[0].nreads, &cap[0]);
        bool hy = next_record(&rb, &y, &d->side[1].reads, &d->side[1].nreads, &cap[1]);
        if (!hx && !hy) break;
        if (hx && hy && !strcmp(x.event, y.event)) {
            if (!d->result_differs && x.result && y.result && strcmp(x.result, y.result)) {
                d->result_differs = true;
                d->result_index = ra.index - 1;
                d->result_event = xstrdup(x.event);
                d->result_note[0] = xstrdup(x.result);
                d->result_note[1] = xstrdup(y.result);
            }
            keep_context(d, x.event);
            record_free(&x);
            record_free(&y);
            continue;
        }
        d->parted = true;
        d->index = (hx ? ra.index : rb.index) - 1;
        d->side[0].line = x.event;
        d->side[0].result = x.result;
        d->side[1].line = y.event;
        d->side[1].result = y.result;
        break;
    }
    d->side[0].events = ra.index;
    d->side[1].events = rb.index;
    if (d->parted) { cut_reads(&d->side[0], d->index); cut_reads(&d->side[1], d->index); }
    free(ra.look);
    free(rb.look);
    return 0;
}

void tracecmp_free(struct tc_diff *d)
{
    for (int s = 0; s < 2; s++) {
        free(d->side[s].line);
        free(d->side[s].result);
        for (size_t i = 0; i < d->side[s].nreads; i++) outside_read_free(&d->side[s].reads[i]);
        free(d->side[s].reads);
        free(d->result_note[s]);
    }
    for (size_t i = 0; i < d->ncontext; i++) free(d->context[i]);
    free(d->result_event);
    memset(d, 0, sizeof *d);
}

size_t tracecmp_changed_reads(const struct tc_diff *d, size_t *idx0, size_t *idx1, size_t max)
{
    const struct tc_side *a = &d->side[0], *b = &d->side[1];
    bool *used = calloc(b->nreads + 1, sizeof *used);
    size_t n = 0, j0 = 0;
    for (size_t i = 0; i < a->nreads; i++) {
        const struct outside_read *x = &a->reads[i];
        while (j0 < b->nreads && b->reads[j0].event < x->event) j0++;
        size_t match = SIZE_MAX;
        for (size_t j = j0; j < b->nreads && b->reads[j].event == x->event; j++)
            if (!used[j] && !strcmp(b->reads[j].path, x->path) && !strcmp(b->reads[j].machine, x->machine)) {
                match = j;
                used[j] = true;
                break;
            }
        if (match != SIZE_MAX && same(b->reads[match].desc, x->desc)) continue;
        if (n < max) { idx0[n] = i; idx1[n] = match; }
        n++;
    }
    free(used);
    return n;
}

/* ---- outputs ---- */

long bytes_first_difference(const char *a, size_t na, const char *b, size_t nb)
{
    size_t n = na < nb ? na : nb, i = 0;
    while (i < n && a[i] == b[i]) i++;
    return i == n && na == nb ? -1 : (long)i;
}

void bytes_line_at(const char *buf, size_t n, size_t off, char *out, size_t len)
{
    if (off > n) off = n;
    size_t start = off, end = off;
    while (start > 0 && buf[start - 1] != '\n' && off - start < 60) start--;
    while (end < n && buf[end] != '\n' && end - start < 120) end++;
    escape(out, len, buf + start, end - start);
}
