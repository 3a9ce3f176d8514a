/* Network events' trace records (netrec.h). A record: the length (8 bytes,
 * little-endian), the two addresses (kind, then IPv4 address and port, 7
 * bytes each, the address 0 unless IPv4: the text shows no other), then
 * kind, from, to and what, each ended by a NUL. */
#include "net/model/netrec.h"
#include <stdio.h>
#include <string.h>

const char *saddr_str(const struct saddr *a, char *buf, size_t size)
{
    if (a->kind == ADDR_V6_LOOP) snprintf(buf, size, "[::1]:%u", a->port);
    else if (a->kind == ADDR_ANY) snprintf(buf, size, "*:%u", a->port);
    else
        snprintf(buf, size, "%u.%u.%u.%u:%u", a->ip >> 24, (a->ip >> 16) & 255, (a->ip >> 8) & 255, a->ip & 255,
                 a->port);
    return buf;
}

static unsigned char *put_le(unsigned char *p, uint64_t v, int n)
{
    for (int i = 0; i < n; i++) *p++ = (unsigned char)(v >> (8 * i));
    return p;
}

static uint64_t get_le(const unsigned char *p, int n)
{
    uint64_t v = 0;
    for (int i = 0; i < n; i++) v |= (uint64_t)p[i] << (8 * i);
    return v;
}

#define ADDR_BYTES 7
#define HEAD_BYTES (8 + 2 * ADDR_BYTES)

static unsigned char *put_addr(unsigned char *p, const struct saddr *a)
{
    *p++ = (unsigned char)a->kind;
    p = put_le(p, a->kind == ADDR_V4 ? a->ip : 0, 4);
    return put_le(p, a->port, 2);
}

static struct saddr get_addr(const unsigned char *p)
{
    return (struct saddr){ .kind = (enum addr_kind)p[0], .ip = (uint32_t)get_le(p + 1, 4),
                           .port = (uint16_t)get_le(p + 5, 2) };
}

size_t netrec_encode(const struct netrec_event *e, unsigned char *buf)
{
    const char *texts[4] = { e->kind, e->from, e->to, e->what ? e->what : "" };
    size_t need = HEAD_BYTES;
    for (int i = 0; i < 4; i++) need += strlen(texts[i]) + 1;
    if (need > NETREC_MAX) return 0;
    unsigned char *p = put_le(buf, e->len, 8);
    p = put_addr(p, &e->src);
    p = put_addr(p, &e->dst);
    for (int i = 0; i < 4; i++) {
        size_t n = strlen(texts[i]) + 1;
        memcpy(p, texts[i], n);
        p += n;
    }
    return (size_t)(p - buf);
}

void netrec_format(const void *rec, size_t len, char *buf, size_t cap)
{
    const unsigned char *r = rec;
    const char *texts[4];
    size_t at = HEAD_BYTES;
    for (int i = 0; i < 4 && at <= len; i++) {
        texts[i] = (const char *)r + at;
        size_t n = at < len ? strnlen(texts[i], len - at) : 0;
        at = n < len - at ? at + n + 1 : len + 1;       /* past the end: no NUL */
    }
    if (at != len) {
        snprintf(buf, cap, "net (a malformed record of %zu bytes)", len);
        return;
    }
    struct saddr src = get_addr(r + 8), dst = get_addr(r + 8 + ADDR_BYTES);
    char a[48], b[48];
    snprintf(buf, cap, "net %s %s %s > %s %s%s%s %llu", texts[0], texts[1], saddr_str(&src, a, sizeof a), texts[2],
             saddr_str(&dst, b, sizeof b), *texts[3] ? " " : "", texts[3], (unsigned long long)get_le(r, 8));
}
