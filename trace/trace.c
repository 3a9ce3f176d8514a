/* The trace: one canonical text line per event, folded into a running
 * XXH3-128 hash, optionally written to a file, the last few kept in a ring.
 *
 * The hash is part of the recorded format (a run's fingerprint), so what goes
 * into it is fixed:
 *   - trace_event: the whole line, "%llu.%09llu %s %d %s\n" (seconds and
 *     nanoseconds of virtual time, machine, tid, text), newline included.
 *   - trace_hash_bytes: len as 8 bytes little-endian, then the len bytes.
 * The hash is unseeded XXH3-128 over the concatenation of those, and
 * trace_hash_hex prints it as high64 then low64, each %016llx.
 *
 * Ring entries are the lines without their trailing newline. */
#include "trace/trace.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

struct ring_slot {
	char *s;
	size_t cap;
};

struct trace {
	FILE *out;
	XXH3_state_t *xxh;
	uint64_t count;
	/* reusable formatting buffer */
	char *buf;
	size_t bufcap;
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
		for (size_t i = 0; i < t->nring; i++)
			free(t->ring[i].s);
		free(t->ring);
	}
	free(t->buf);
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

void trace_event(struct trace *t, uint64_t vtime_ns, const char *machine, int tid,
                 const char *fmt, ...)
{
	if (!machine)
		machine = "-";
	unsigned long long sec = vtime_ns / 1000000000ULL;
	unsigned long long nsec = vtime_ns % 1000000000ULL;

	/* Header: "<sec>.<nsec> <machine> <tid> " */
	int h = snprintf(t->buf, t->bufcap, "%llu.%09llu %s %d ", sec, nsec,
	                 machine, tid);
	if (h < 0)
		oom();
	if ((size_t)h >= t->bufcap) {
		buf_reserve(t, (size_t)h + 1);
		snprintf(t->buf, t->bufcap, "%llu.%09llu %s %d ", sec, nsec,
		         machine, tid);
	}
	size_t len = (size_t)h;

	/* Text, appended after the header; room for '\n' is reserved too. */
	va_list ap;
	va_start(ap, fmt);
	va_list ap2;
	va_copy(ap2, ap);
	int n = vsnprintf(t->buf + len, t->bufcap - len, fmt, ap);
	va_end(ap);
	if (n < 0) {
		va_end(ap2);
		oom();
	}
	if (len + (size_t)n + 2 > t->bufcap) {
		buf_reserve(t, len + (size_t)n + 2);
		vsnprintf(t->buf + len, t->bufcap - len, fmt, ap2);
	}
	va_end(ap2);
	len += (size_t)n;
	t->buf[len] = '\n';
	t->buf[len + 1] = '\0';

	XXH3_128bits_update(t->xxh, t->buf, len + 1);
	if (t->out)
		fwrite(t->buf, 1, len + 1, t->out);
	t->count++;

	if (t->nring) {
		struct ring_slot *r = &t->ring[t->head];
		if (r->cap < len + 1) {
			size_t cap = len + 1 < 64 ? 64 : len + 1;
			char *s = realloc(r->s, cap);
			if (!s)
				oom();
			r->s = s;
			r->cap = cap;
		}
		memcpy(r->s, t->buf, len);
		r->s[len] = '\0';
		t->head = (t->head + 1) % t->nring;
	}
	if (t->tap) {
		t->buf[len] = '\0';
		t->tap(t->tap_arg, t->count - 1, t->buf);
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
	return t->ring[idx].s;
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
