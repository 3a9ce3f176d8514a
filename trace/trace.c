/* The trace: one canonical text line per event, folded into a running
 * XXH3-128 hash, optionally written to a file, the last few kept in a ring.
 *
 * The hash is part of the recorded format (a run's fingerprint), so what goes
 * into it is fixed. Every event is hashed in a compact binary form, never
 * as its text, which is made only when someone reads it (a trace file, a
 * tap, a report asking for the ring):
 *   - the event's header: a tag byte ('T' for a text event, 'R' for a
 *     record), the virtual time as 8 bytes little-endian, the tid as 4,
 *     the machine's name as its length (4 bytes) and its bytes;
 *   - trace_event: the text's length (4 bytes) and its bytes;
 *   - trace_record: the record's length (4 bytes) and its bytes, which
 *     determine the text exactly (its formatter is a function of them);
 *   - trace_hash_bytes: len as 8 bytes little-endian, then the len bytes.
 * The hash is unseeded XXH3-128 over the concatenation of those, and
 * trace_hash_hex prints it as high64 then low64, each %016llx.
 *
 * Ring entries keep the event as given (text, or record and formatter) and
 * make its line, without the trailing newline, when it is asked for. */
#include "trace/trace.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

/* One kept event: data holds the machine's name, its NUL, then the text
 * (NUL-terminated) or the record; line is made from them when asked. */
struct ring_slot {
	uint64_t vtime_ns;
	int tid;
	trace_fmt_fn fmt;       /* NULL: a text event */
	size_t mlen, len;       /* machine name's length; the text's or record's */
	unsigned char *data;
	size_t cap;
	char *line;             /* NULL until asked for */
	size_t linecap;
	bool line_ok;
};

struct trace {
	FILE *out;
	XXH3_state_t *xxh;
	uint64_t count;
	/* reusable formatting buffer (the text of a line) */
	char *buf;
	size_t bufcap;
	/* reusable buffer for an event's hashed form */
	unsigned char *hbuf;
	size_t hbufcap;
	/* ring of the last nring lines; head = index the next line goes to */
	struct ring_slot *ring;
	size_t nring;
	size_t head;
	trace_tap_fn tap;
	void *tap_arg;
};

static void oom(void)
{
	/* A lost event would silently change the run's fingerprint; there is
	 * no sane way to continue. */
	fputs("dsim: trace: out of memory\n", stderr);
	abort();
}

struct trace *trace_new(FILE *out, size_t ring)
{
	struct trace *t = calloc(1, sizeof *t);
	if (!t)
		return NULL;
	t->out = out;
	t->nring = ring;
	t->xxh = XXH3_createState();
	t->bufcap = 256;
	t->buf = malloc(t->bufcap);
	if (ring)
		t->ring = calloc(ring, sizeof *t->ring);
	if (!t->xxh || !t->buf || (ring && !t->ring) ||
	    XXH3_128bits_reset(t->xxh) != XXH_OK) {
		trace_free(t);
		return NULL;
	}
	return t;
}

void trace_free(struct trace *t)
{
	if (!t)
		return;
	if (t->ring) {
		for (size_t i = 0; i < t->nring; i++) {
			free(t->ring[i].data);
			free(t->ring[i].line);
		}
		free(t->ring);
	}
	free(t->buf);
	free(t->hbuf);
	if (t->xxh)
		XXH3_freeState(t->xxh);
	free(t);
}

/* Make buf hold at least need bytes; its contents are preserved. */
static void buf_reserve(struct trace *t, size_t need)
{
	if (need <= t->bufcap)
		return;
	size_t cap = t->bufcap ? t->bufcap : 256;
	while (cap < need) {
		if (cap > SIZE_MAX / 2)
			oom();
		cap *= 2;
	}
	char *b = realloc(t->buf, cap);
	if (!b)
		oom();
	t->buf = b;
	t->bufcap = cap;
}

/* Grows *p (holding *cap bytes) to at least need bytes, contents kept. */
static void grow(void *p, size_t *cap, size_t need)
{
	if (need <= *cap)
		return;
	size_t c = *cap ? *cap : 64;
	while (c < need) {
		if (c > SIZE_MAX / 2)
			oom();
		c *= 2;
	}
	void *b = realloc(*(void **)p, c);
	if (!b)
		oom();
	*(void **)p = b;
	*cap = c;
}

static void put_le(unsigned char *p, uint64_t v, int n)
{
	for (int i = 0; i < n; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

/* Hashes an event's binary form: header, then body (text or record). */
static void hash_event(struct trace *t, char tag, uint64_t vtime_ns, const char *machine, size_t mlen, int tid,
                       const void *body, size_t len)
{
	size_t need = 1 + 8 + 4 + 4 + mlen + 4 + len;
	grow(&t->hbuf, &t->hbufcap, need);
	unsigned char *p = t->hbuf;
	*p++ = (unsigned char)tag;
	put_le(p, vtime_ns, 8), p += 8;
	put_le(p, (uint32_t)tid, 4), p += 4;
	put_le(p, mlen, 4), p += 4;
	memcpy(p, machine, mlen), p += mlen;
	put_le(p, len, 4), p += 4;
	if (len)
		memcpy(p, body, len);
	XXH3_128bits_update(t->xxh, t->hbuf, need);
}

/* The line's header "<sec>.<nsec> <machine> <tid> " into buf; its length. */
static size_t line_header(char **buf, size_t *cap, uint64_t vtime_ns, const char *machine, int tid)
{
	unsigned long long sec = vtime_ns / 1000000000ULL;
	unsigned long long nsec = vtime_ns % 1000000000ULL;
	for (;;) {
		int h = snprintf(*buf, *cap, "%llu.%09llu %s %d ", sec, nsec, machine, tid);
		if (h < 0)
			oom();
		if ((size_t)h < *cap)
			return (size_t)h;
		grow(buf, cap, (size_t)h + 1);
	}
}

/* The record's text after off bytes of buf (the formatter writes at most
 * 4096 bytes, NUL included); the line's length. */
static size_t line_record(char **buf, size_t *cap, size_t off, trace_fmt_fn fmt, const void *rec, size_t len)
{
	grow(buf, cap, off + TRACE_TEXT_MAX + 2);
	(*buf)[off] = '\0';
	fmt(rec, len, *buf + off, TRACE_TEXT_MAX);
	return off + strlen(*buf + off);
}

/* Keeps the event in the ring; its line is made when asked for. */
static void keep(struct trace *t, uint64_t vtime_ns, const char *machine, size_t mlen, int tid, trace_fmt_fn fmt,
                 const void *body, size_t len)
{
	struct ring_slot *r = &t->ring[t->head];
	grow(&r->data, &r->cap, mlen + 1 + len + 1);
	memcpy(r->data, machine, mlen);
	r->data[mlen] = '\0';
	memcpy(r->data + mlen + 1, body, len);
	r->data[mlen + 1 + len] = '\0';
	r->vtime_ns = vtime_ns;
	r->tid = tid;
	r->fmt = fmt;
	r->mlen = mlen;
	r->len = len;
	r->line_ok = false;
	t->head = (t->head + 1) % t->nring;
}

/* The line is in t->buf (len bytes, room for two more): written, tapped. */
static void emit_line(struct trace *t, size_t len)
{
	t->buf[len] = '\n';
	t->buf[len + 1] = '\0';
	if (t->out)
		fwrite(t->buf, 1, len + 1, t->out);
	if (t->tap) {
		t->buf[len] = '\0';
		t->tap(t->tap_arg, t->count - 1, t->buf);
	}
}

void trace_event(struct trace *t, uint64_t vtime_ns, const char *machine, int tid,
                 const char *fmt, ...)
{
	if (!machine)
		machine = "-";
	size_t mlen = strlen(machine);
	/* The header only when a line is made; the text after it, with room
	 * for the '\n' reserved too. */
	size_t h = t->out || t->tap ? line_header(&t->buf, &t->bufcap, vtime_ns, machine, tid) : 0;
	va_list ap;
	va_start(ap, fmt);
	va_list ap2;
	va_copy(ap2, ap);
	int n = vsnprintf(t->buf + h, t->bufcap - h, fmt, ap);
	va_end(ap);
	if (n < 0) {
		va_end(ap2);
		oom();
	}
	if (h + (size_t)n + 2 > t->bufcap) {
		buf_reserve(t, h + (size_t)n + 2);
		vsnprintf(t->buf + h, t->bufcap - h, fmt, ap2);
	}
	va_end(ap2);
	size_t len = (size_t)n;

	t->count++;
	hash_event(t, 'T', vtime_ns, machine, mlen, tid, t->buf + h, len);
	if (t->nring)
		keep(t, vtime_ns, machine, mlen, tid, NULL, t->buf + h, len);
	if (t->out || t->tap)
		emit_line(t, h + len);
}

void trace_record(struct trace *t, uint64_t vtime_ns, const char *machine, int tid, const void *rec, size_t len,
                  trace_fmt_fn fmt)
{
	if (!machine)
		machine = "-";
	size_t mlen = strlen(machine);
	t->count++;
	hash_event(t, 'R', vtime_ns, machine, mlen, tid, rec, len);
	if (t->nring)
		keep(t, vtime_ns, machine, mlen, tid, fmt, rec, len);
	if (t->out || t->tap) {
		size_t h = line_header(&t->buf, &t->bufcap, vtime_ns, machine, tid);
		emit_line(t, line_record(&t->buf, &t->bufcap, h, fmt, rec, len));
	}
}

void trace_set_tap(struct trace *t, trace_tap_fn fn, void *arg)
{
	t->tap = fn;
	t->tap_arg = arg;
}

void trace_hash_bytes(struct trace *t, const void *data, size_t len)
{
	unsigned char le[8];
	uint64_t l = len;
	for (int i = 0; i < 8; i++)
		le[i] = (unsigned char)(l >> (8 * i));
	XXH3_128bits_update(t->xxh, le, sizeof le);
	if (len)
		XXH3_128bits_update(t->xxh, data, len);
}

uint64_t trace_count(const struct trace *t)
{
	return t->count;
}

void trace_hash_hex(const struct trace *t, char out[33])
{
	XXH128_hash_t d = XXH3_128bits_digest(t->xxh);
	snprintf(out, 33, "%016llx%016llx", (unsigned long long)d.high64,
	         (unsigned long long)d.low64);
}

const char *trace_recent(const struct trace *t, size_t i)
{
	if (i >= t->nring || i >= t->count)
		return NULL;
	size_t idx = (t->head + t->nring - 1 - i) % t->nring;
	/* The line is made on first demand and kept: a cache, not a change. */
	struct ring_slot *r = (struct ring_slot *)&t->ring[idx];
	if (!r->line_ok) {
		const char *machine = (const char *)r->data;
		const unsigned char *body = r->data + r->mlen + 1;
		size_t h = line_header(&r->line, &r->linecap, r->vtime_ns, machine, r->tid), len;
		if (r->fmt) {
			len = line_record(&r->line, &r->linecap, h, r->fmt, body, r->len);
		} else {
			grow(&r->line, &r->linecap, h + r->len + 1);
			memcpy(r->line + h, body, r->len);
			len = h + r->len;
		}
		r->line[len] = '\0';
		r->line_ok = true;
	}
	return r->line;
}

int trace_parse_line(char *line, struct trace_line *out)
{
    unsigned long long sec, nsec;
    int tid, pos_m = 0, end_m = 0, pos_t = 0;
    if (sscanf(line, "%llu.%9llu %n%*s%n %d %n", &sec, &nsec, &pos_m, &end_m, &tid, &pos_t) < 3 || !pos_t)
        return -1;
    line[end_m] = 0;
    line[strcspn(line + pos_t, "\n") + (size_t)pos_t] = 0;
    out->vtime_ns = sec * 1000000000ULL + nsec;
    out->machine = line + pos_m;
    out->tid = tid;
    out->text = line + pos_t;
    size_t n = strcspn(out->text, "( ");
    if (n >= sizeof out->call) n = sizeof out->call - 1;
    memcpy(out->call, out->text, n);
    out->call[n] = 0;
    return 0;
}

bool trace_has_notes(const struct trace *t)
{
    return t->out != NULL;
}

void trace_note(struct trace *t, const char *text)
{
    if (t->out) fprintf(t->out, "  | %s\n", text);
}

const char *trace_line_text(const char *line, const char **machine)
{
    const char *a = strchr(line, ' '), *b = a ? strchr(a + 1, ' ') : NULL, *c = b ? strchr(b + 1, ' ') : NULL;
    if (machine) *machine = a ? a + 1 : NULL;
    return c ? c + 1 : NULL;
}

bool trace_is_clock_read(const char *text)
{
    static const char *const reads[] = { "rdtsc", "clock_gettime(", "gettimeofday(", "time(" };
    for (size_t i = 0; text && i < sizeof reads / sizeof *reads; i++)
        if (!strncmp(text, reads[i], strlen(reads[i]))) return true;
    return false;
}
