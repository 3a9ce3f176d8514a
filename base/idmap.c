/* File identities in order of first sight (idmap.h). */
#include "base/idmap.h"
#include <stdlib.h>
#include <sys/sysmacros.h>

static size_t slot_of(const struct idmap *map, uint64_t dev, uint64_t ino)
{
    uint64_t h = (dev * 0x9e3779b97f4a7c15ull) ^ (ino * 0xc2b2ae3d27d4eb4full);
    h ^= h >> 29;
    size_t i = (size_t)h & (map->cap - 1);
    while (map->slots[i].vino && (map->slots[i].dev != dev || map->slots[i].ino != ino))
        i = (i + 1) & (map->cap - 1);
    return i;
}

static void grow(struct idmap *map)
{
    struct idmap_slot *old = map->slots;
    size_t oldcap = map->cap;
    map->cap = oldcap ? 2 * oldcap : 256;
    map->slots = calloc(map->cap, sizeof *map->slots);
    if (!map->slots) abort();
    for (size_t i = 0; i < oldcap; i++)
        if (old[i].vino) map->slots[slot_of(map, old[i].dev, old[i].ino)] = old[i];
    free(old);
}

uint64_t idmap_ino(struct idmap *map, uint64_t dev, uint64_t ino)
{
    if (2 * (map->n + 1) > map->cap) grow(map);
    struct idmap_slot *s = &map->slots[slot_of(map, dev, ino)];
    if (!s->vino) {
        if (!map->next_ino) map->next_ino = IDMAP_FIRST_INO;
        *s = (struct idmap_slot){ dev, ino, map->next_ino++ };
        map->n++;
    }
    return s->vino;
}

void idmap_forget(struct idmap *map, uint64_t dev, uint64_t ino)
{
    if (!map->cap) return;
    struct idmap_slot *s = &map->slots[slot_of(map, dev, ino)];
    if (!s->vino) return;
    /* The slot stays taken (probes go on past it) under a key that no
     * device has: devices are dev_t values, far below this one. */
    s->dev = UINT64_MAX;
    s->ino = map->forgotten++;
}

void idmap_rekey(struct idmap *map, uint64_t dev, uint64_t from, uint64_t to)
{
    if (!map->cap || from == to) return;
    struct idmap_slot *s = &map->slots[slot_of(map, dev, from)];
    if (!s->vino) return;
    uint64_t vino = s->vino;
    idmap_forget(map, dev, from);
    idmap_forget(map, dev, to);
    if (2 * (map->n + 1) > map->cap) grow(map);
    map->slots[slot_of(map, dev, to)] = (struct idmap_slot){ dev, to, vino };
    map->n++;
}

uint64_t idmap_dev(struct idmap *map, uint64_t dev)
{
    size_t i = 0;
    while (i < map->ndevs && map->devs[i] != dev) i++;
    if (i == map->ndevs) {
        if (map->ndevs == IDMAP_DEVS) i = IDMAP_DEVS - 1;   /* more devices share the last number */
        else map->devs[map->ndevs++] = dev;
    }
    return makedev(0, IDMAP_FIRST_MINOR + (unsigned)i);
}

void idmap_free(struct idmap *map)
{
    free(map->slots);
    *map = (struct idmap){ 0 };
}
