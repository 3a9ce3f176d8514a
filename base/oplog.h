/* The name operations of a machine (create, rename, unlink ...) that are
 * not durable yet, in the order they happened. Pure bookkeeping, unit-tested
 * alone: what the operations did to files is disk/durable.c's. */
#ifndef DSIM_OPLOG_H
#define DSIM_OPLOG_H
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

enum name_op_kind { NOP_CREATE, NOP_MKDIR, NOP_LINK, NOP_SYMLINK, NOP_MKNOD, NOP_UNLINK, NOP_RMDIR,
                    NOP_RENAME, NOP_EXCHANGE };

/* What the machine's upper layer held at a path before the operation. */
enum prior_kind { PRIOR_NONE, PRIOR_WHITEOUT, PRIOR_DIR, PRIOR_SAVED /* a hard link in the graveyard */ };

struct name_op {
    enum name_op_kind kind;
    char *path[2];          /* machine paths: the entry, and a rename's target */
    char *dir[2];           /* their parent directories (dir[1] NULL if one path) */
    enum prior_kind prior[2];
    mode_t mode[2];         /* of a PRIOR_DIR */
    unsigned long grave[2]; /* the graveyard entry of a PRIOR_SAVED */
    bool durable;
};

struct oplog {
    struct name_op *ops;
    size_t n, cap;
};

const char *name_op_verb(enum name_op_kind k);
/* Appends an operation on path0 (and path1); NULL if out of memory. */
struct name_op *oplog_add(struct oplog *l, enum name_op_kind kind, const char *path0, const char *path1);
/* An fsync of directory dir: every operation on an entry of dir becomes
 * durable, and with each, every earlier operation in a directory it
 * touched (a journal commits in order). Returns how many became durable. */
size_t oplog_dir_synced(struct oplog *l, const char *dir);
/* A journal commit (sync, or any fsync but under strict_names): all of them. */
void oplog_all_synced(struct oplog *l);
/* The oldest operations are durable once the log holds more than max. */
void oplog_limit(struct oplog *l, size_t max);
/* Removes the durable operations, each passed to drop first (may be NULL). */
void oplog_compact(struct oplog *l, void (*drop)(struct name_op *op, void *arg), void *arg);
/* Removes the last operation (it did not take effect). */
void oplog_pop(struct oplog *l);
void oplog_clear(struct oplog *l);
#endif
