#include "base/sample.h"
#include "base/prng.h"
#include <stdlib.h>
#include <string.h>

int sample_parse(const char *text, struct sample_spec *out)
{
    const char *p = text;
    uint64_t whole = 0, frac = 0;
    int decimals = 0;
    if (*p < '0' || *p > '9') return -1;
    for (; *p >= '0' && *p <= '9'; p++) {
        if (whole > 100000000000ULL) return -1;
        whole = whole * 10 + (uint64_t)(*p - '0');
    }
    if (*p == '.') {
        for (p++; *p >= '0' && *p <= '9'; p++) {
            if (++decimals > 3) return -1;
            frac = frac * 10 + (uint64_t)(*p - '0');
        }
        if (!decimals || *p != '%') return -1;     /* a count has no decimals */
    }
    while (decimals < 3) { frac *= 10; decimals++; }
    if (*p == '%' && !p[1]) {
        if (whole > 100 || (whole == 100 && frac)) return -1;
        *out = (struct sample_spec){ true, whole * 1000 + frac };
        return 0;
    }
    if (*p) return -1;
    *out = (struct sample_spec){ false, whole };
    return 0;
}

size_t sample_size(const struct sample_spec *s, size_t n)
{
    if (!s->percent) return s->value < n ? (size_t)s->value : n;
    unsigned __int128 k = ((unsigned __int128)n * s->value + 99999) / 100000;
    return (size_t)k;
}

struct keyed { uint64_t key; size_t index; };

static bool before(const struct keyed *a, const struct keyed *b)
{
    return a->key < b->key || (a->key == b->key && a->index < b->index);
}

/* A max-heap of the k smallest so far: its root is the one to drop. */
static void sift_down(struct keyed *h, size_t n, size_t i)
{
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, big = i;
        if (l < n && before(&h[big], &h[l])) big = l;
        if (r < n && before(&h[big], &h[r])) big = r;
        if (big == i) return;
        struct keyed t = h[i];
        h[i] = h[big];
        h[big] = t;
        i = big;
    }
}

static void sift_up(struct keyed *h, size_t i)
{
    while (i > 0 && before(&h[(i - 1) / 2], &h[i])) {
        struct keyed t = h[i];
        h[i] = h[(i - 1) / 2];
        h[(i - 1) / 2] = t;
        i = (i - 1) / 2;
    }
}

void sample_choose(const uint64_t *seeds, size_t n, size_t k, bool *chosen)
{
    memset(chosen, 0, n * sizeof *chosen);
    if (k >= n) { for (size_t i = 0; i < n; i++) chosen[i] = true; return; }
    if (!k) return;
    struct keyed *h = malloc(k * sizeof *h);
    if (!h) abort();
    size_t used = 0;
    for (size_t i = 0; i < n; i++) {
        struct prng p;
        prng_init(&p, seeds[i], "verify-sample");
        struct keyed x = { prng_next(&p), i };
        if (used < k) { h[used] = x; sift_up(h, used++); }
        else if (before(&x, &h[0])) { h[0] = x; sift_down(h, k, 0); }
    }
    for (size_t i = 0; i < used; i++) chosen[h[i].index] = true;
    free(h);
}
