/* Changed byte ranges of files since their last durable copy (unsynced.h). */
#include "base/unsynced.h"
#include <stdlib.h>
#include <string.h>

static size_t slot_of(const struct unsynced *u, uint64_t dev, uint64_t ino)
{
    uint64_t h = (dev * 0x9e3779b97f4a7c15ull) ^ (ino * 0xc2b2ae3d27d4eb4full);
    h ^= h >> 29;
    size_t i = (size_t)h & (u->cap - 1);
    while (u->slots[i].used && (u->slots[i].dev != dev || u->slots[i].ino != ino)) i = (i + 1) & (u->cap - 1);
    return i;
}

static void grow(struct unsynced *u)
{
    struct unsynced_file *old = u->slots;
    size_t oldcap = u->cap;
    u->cap = oldcap ? 2 * oldcap : 64;
    u->slots = calloc(u->cap, sizeof *u->slots);
    if (!u->slots) abort();
    for (size_t i = 0; i < oldcap; i++)
        if (old[i].used) u->slots[slot_of(u, old[i].dev, old[i].ino)] = old[i];
    free(old);
}

static struct unsynced_file *file(struct unsynced *u, uint64_t dev, uint64_t ino)
{
    if (2 * (u->used + 1) > u->cap) grow(u);
    struct unsynced_file *f = &u->slots[slot_of(u, dev, ino)];
    if (!f->used) {
        *f = (struct unsynced_file){ .dev = dev, .ino = ino, .used = true };
        u->used++;
    }
    return f;
}

/* Adds [s, e) to the sorted, apart ranges, merging what touches it. */
static void add_range(struct unsynced_file *f, uint64_t s, uint64_t e)
{
    struct unsynced_range out[UNSYNCED_RANGES + 1];
    int n = 0, i = 0;
    while (i < f->n && f->r[i].end < s) out[n++] = f->r[i++];
    while (i < f->n && f->r[i].start <= e) {
        if (f->r[i].start < s) s = f->r[i].start;
        if (f->r[i].end > e) e = f->r[i].end;
        i++;
    }
    out[n++] = (struct unsynced_range){ s, e };
    while (i < f->n) out[n++] = f->r[i++];
    if (n > UNSYNCED_RANGES) {
        f->whole = true;
        f->n = 0;
        return;
    }
    memcpy(f->r, out, sizeof *out * (size_t)n);
    f->n = n;
}

void unsynced_write(struct unsynced *u, uint64_t dev, uint64_t ino, uint64_t off, uint64_t len)
{
    struct unsynced_file *f = file(u, dev, ino);
    f->changed = true;
    if (f->whole || len == 0) return;
    uint64_t end = off + len < off ? UINT64_MAX : off + len;
    add_range(f, off, end);
}

void unsynced_whole(struct unsynced *u, uint64_t dev, uint64_t ino)
{
    struct unsynced_file *f = file(u, dev, ino);
    f->changed = f->whole = true;
    f->n = 0;
}

const struct unsynced_file *unsynced_get(const struct unsynced *u, uint64_t dev, uint64_t ino)
{
    if (!u->cap) return NULL;
    const struct unsynced_file *f = &u->slots[slot_of(u, dev, ino)];
    return f->used && f->changed ? f : NULL;
}

void unsynced_synced(struct unsynced *u, uint64_t dev, uint64_t ino)
{
    if (!u->cap) return;
    struct unsynced_file *f = &u->slots[slot_of(u, dev, ino)];
    if (!f->used) return;
    f->changed = f->whole = false;
    f->n = 0;
}

void unsynced_clear(struct unsynced *u)
{
    free(u->slots);
    *u = (struct unsynced){ 0 };
}
