/* A machine's file identities. The kernel's inode and device numbers are the
 * host's: another host, or the next run (a fresh overlay gets a fresh
 * anonymous device, a file a fresh inode), gives other numbers. dsim shows
 * each machine numbers handed out in the order it first sees them, which the
 * seed fixes. Pure bookkeeping, unit-tested alone. */
#ifndef DSIM_IDMAP_H
#define DSIM_IDMAP_H
#include <stddef.h>
#include <stdint.h>

struct idmap_slot { uint64_t dev, ino, vino; };

#define IDMAP_DEVS 64
struct idmap {
    struct idmap_slot *slots;   /* open addressing; vino 0 = empty */
    size_t cap, n;
    uint64_t next_ino;
    uint64_t forgotten;         /* retired slots: keys no host file has */
    uint64_t devs[IDMAP_DEVS];  /* host devices in order of first sight */
    size_t ndevs;
};

/* The first inode number handed out, and the first device's minor number
 * (anonymous devices, major 0, as overlayfs and tmpfs have). */
#define IDMAP_FIRST_INO 2
#define IDMAP_FIRST_MINOR 32

/* The machine's inode number for host inode `ino` on host device `dev`. */
uint64_t idmap_ino(struct idmap *map, uint64_t dev, uint64_t ino);
/* The host inode `ino` on `dev` is a new file now (the host may hand a
 * freed inode's number to a new file, and whether it does is its choice,
 * made with every other process of the host): the next look at it gets a
 * number of its own, so later numbers do not depend on that choice. */
void idmap_forget(struct idmap *map, uint64_t dev, uint64_t ino);
/* The file known as host inode `from` on `dev` is `to` from now on (a copy
 * of the disk made it another host file): its number stays. A number `to`
 * had goes, as idmap_forget's. */
void idmap_rekey(struct idmap *map, uint64_t dev, uint64_t from, uint64_t to);
/* The machine's device number (a dev_t) for host device `dev`. */
uint64_t idmap_dev(struct idmap *map, uint64_t dev);
void idmap_free(struct idmap *map);

#endif
