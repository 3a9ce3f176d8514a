#include "base/oplog.h"
#include "base/xalloc.h"
#include <stdlib.h>
#include <string.h>

const char *name_op_verb(enum name_op_kind k)
{
    static const char *const verbs[] = { "create", "mkdir", "link", "symlink", "mknod", "unlink", "rmdir",
                                         "rename", "exchange" };
    return verbs[k];
}

static char *parent_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash || slash == path) return strdup("/");
    return strndup(path, (size_t)(slash - path));
}

struct name_op *oplog_add(struct oplog *l, enum name_op_kind kind, const char *path0, const char *path1)
{
    GROW(l->ops, l->n, l->cap);
    struct name_op *op = &l->ops[l->n++];
    memset(op, 0, sizeof *op);
    op->kind = kind;
    op->path[0] = strdup(path0);
    op->dir[0] = parent_of(path0);
    if (path1) {
        op->path[1] = strdup(path1);
        op->dir[1] = parent_of(path1);
        if (!strcmp(op->dir[1], op->dir[0])) { free(op->dir[1]); op->dir[1] = NULL; }
    }
    return op;
}

/* A small set of directory names (linear: logs stay short between syncs). */
struct dirset { const char **d; size_t n, cap; };

static bool dirset_has(const struct dirset *s, const char *dir)
{
    for (size_t i = 0; dir && i < s->n; i++)
        if (!strcmp(s->d[i], dir)) return true;
    return false;
}

static void dirset_add(struct dirset *s, const char *dir)
{
    if (!dir || dirset_has(s, dir)) return;
    GROW(s->d, s->n, s->cap);
    s->d[s->n++] = dir;
}

/* Walks back from ops[start]: an operation in a directory of the set
 * becomes durable, and its directories join the set. */
static size_t closure(struct oplog *l, size_t start, struct dirset *s)
{
    size_t made = 0;
    for (size_t i = start + 1; i-- > 0;) {
        struct name_op *op = &l->ops[i];
        if (!op->durable && !dirset_has(s, op->dir[0]) && !dirset_has(s, op->dir[1])) continue;
        if (!op->durable) made++;
        op->durable = true;
        dirset_add(s, op->dir[0]);
        dirset_add(s, op->dir[1]);
    }
    free(s->d);
    return made;
}

size_t oplog_dir_synced(struct oplog *l, const char *dir)
{
    struct dirset s = { 0 };
    if (!l->n) return 0;
    dirset_add(&s, dir);
    return closure(l, l->n - 1, &s);
}

void oplog_all_synced(struct oplog *l)
{
    for (size_t i = 0; i < l->n; i++) l->ops[i].durable = true;
}

void oplog_limit(struct oplog *l, size_t max)
{
    for (size_t i = 0; l->n > max && i < l->n - max; i++) l->ops[i].durable = true;
}

static void op_free(struct name_op *op)
{
    for (int i = 0; i < 2; i++) {
        free(op->path[i]);
        free(op->dir[i]);
    }
}

void oplog_compact(struct oplog *l, void (*drop)(struct name_op *op, void *arg), void *arg)
{
    size_t kept = 0;
    for (size_t i = 0; i < l->n; i++) {
        if (!l->ops[i].durable) {
            l->ops[kept++] = l->ops[i];
            continue;
        }
        if (drop) drop(&l->ops[i], arg);
        op_free(&l->ops[i]);
    }
    l->n = kept;
}

void oplog_pop(struct oplog *l)
{
    if (l->n) op_free(&l->ops[--l->n]);
}

void oplog_clear(struct oplog *l)
{
    for (size_t i = 0; i < l->n; i++) op_free(&l->ops[i]);
    free(l->ops);
    l->ops = NULL;
    l->n = l->cap = 0;
}
