/* The version-pinned PRNG: xoshiro256** (Blackman & Vigna, 2018) seeded with
 * splitmix64.
 *
 * VERSION PINNED. Every recorded seed replays only as long as the functions
 * below produce exactly the same numbers, so none of them may change: not the
 * stream derivation, not the generator, not prng_below's rejection rule, not
 * prng_fill's byte order. tests/unit/test_prng.c holds golden values.
 *
 * Stream derivation, prng_init(p, seed, name):
 *   key = FNV-1a 64 over the bytes of name (no terminating NUL; NULL = "")
 *         offset basis 0xcbf29ce484222325, prime 0x100000001b3
 *   x   = seed ^ rotl64(key, 17)
 *   s[0], s[1], s[2], s[3] = four successive splitmix64(&x) outputs
 *   if the state is all zero (never in practice), s[0] = 0x9e3779b97f4a7c15.
 *
 * prng_below(n): Lemire's multiply-shift: m = x * n (128-bit); reject while
 *   low64(m) < (2^64 - n) mod n, drawing a fresh x; return high64(m).
 * prng_fill: each output gives 8 bytes, least significant first; a final
 *   partial chunk takes the low bytes of one more output, the rest of which
 *   is discarded. */
#include "base/prng.h"

static inline uint64_t rotl64(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static uint64_t fnv1a64(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	if (s)
		for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
			h ^= *c;
			h *= 0x100000001b3ULL;
		}
	return h;
}

void prng_init(struct prng *p, uint64_t seed, const char *name)
{
	uint64_t x = seed ^ rotl64(fnv1a64(name), 17);
	for (int i = 0; i < 4; i++)
		p->s[i] = splitmix64(&x);
	if (!(p->s[0] | p->s[1] | p->s[2] | p->s[3]))
		p->s[0] = 0x9e3779b97f4a7c15ULL;
}

uint64_t prng_next(struct prng *p)
{
	uint64_t *s = p->s;
	uint64_t result = rotl64(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;
	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl64(s[3], 45);
	return result;
}

uint64_t prng_below(struct prng *p, uint64_t n)
{
	if (n == 0)             /* caller error; keep it harmless and pinned */
		return 0;
	unsigned __int128 m = (unsigned __int128)prng_next(p) * n;
	uint64_t l = (uint64_t)m;
	if (l < n) {
		uint64_t t = -n % n;    /* (2^64 - n) mod n */
		while (l < t) {
			m = (unsigned __int128)prng_next(p) * n;
			l = (uint64_t)m;
		}
	}
	return (uint64_t)(m >> 64);
}

void prng_fill(struct prng *p, void *buf, size_t len)
{
	unsigned char *b = buf;
	while (len) {
		uint64_t x = prng_next(p);
		size_t k = len < 8 ? len : 8;
		for (size_t i = 0; i < k; i++)
			b[i] = (unsigned char)(x >> (8 * i));
		b += k;
		len -= k;
	}
}
