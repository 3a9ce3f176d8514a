/* What of a machine's files changed since their last durable copy, and
 * where. An fsync then copies only the byte ranges written since the last
 * one (PostgreSQL fsyncs its 16 MB WAL segment at every commit, and a
 * whole copy each time made a commit cost a 16 MB write), and nothing for
 * a file no one wrote. Files are known by the device and inode the machine's
 * calls see (its overlay's). A change dsim cannot place (a truncation, a
 * copy between fds, a write it saw only through a stat) marks the whole
 * file. Pure bookkeeping, unit-tested alone. */
#ifndef DSIM_UNSYNCED_H
#define DSIM_UNSYNCED_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define UNSYNCED_RANGES 8       /* more separate pieces than this: the whole file */

struct unsynced_range { uint64_t start, end; };     /* [start, end) */
struct unsynced_file {
    uint64_t dev, ino;
    bool used;                  /* the slot holds a file (slots are never freed) */
    bool changed;               /* written since its last durable copy */
    bool whole;                 /* ... where, dsim does not know */
    int n;
    struct unsynced_range r[UNSYNCED_RANGES];   /* sorted, apart */
};
struct unsynced {
    struct unsynced_file *slots;        /* open addressing */
    size_t cap, used;
};

/* len bytes at off were written. */
void unsynced_write(struct unsynced *u, uint64_t dev, uint64_t ino, uint64_t off, uint64_t len);
/* The file changed somewhere. */
void unsynced_whole(struct unsynced *u, uint64_t dev, uint64_t ino);
/* The file's changes since its last durable copy, or NULL: none. */
const struct unsynced_file *unsynced_get(const struct unsynced *u, uint64_t dev, uint64_t ino);
/* The file's content is durable as it is now. */
void unsynced_synced(struct unsynced *u, uint64_t dev, uint64_t ino);
/* Everything is durable as it is (after a crash); frees the table. */
void unsynced_clear(struct unsynced *u);
#endif
