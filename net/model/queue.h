/* An event queue: a binary min-heap of items ordered by (time, insertion
 * order), so events due at the same time come out first in, first out.
 * Runs replay only because this order never depends on addresses or luck.
 * Pure logic; unit-tested in tests/unit/test_net.c. */
#ifndef DSIM_NET_QUEUE_H
#define DSIM_NET_QUEUE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct evq;

/* An empty queue; aborts when out of memory, like evq_push. */
struct evq *evq_new(void);
/* Frees the queue, and each item still in it with free_item (if not NULL). */
void evq_free(struct evq *q, void (*free_item)(void *));
/* Adds item, due at `at`. Aborts when out of memory: a lost event would
 * silently change the run. */
void evq_push(struct evq *q, uint64_t at, void *item);
/* When the earliest item is due, or UINT64_MAX if the queue is empty. */
uint64_t evq_next(const struct evq *q);
/* Removes and returns the earliest item (the first pushed among equals),
 * storing its time in *at if at is not NULL; NULL if the queue is empty. */
void *evq_pop(struct evq *q, uint64_t *at);
size_t evq_len(const struct evq *q);
/* Removes every item for which pred(item, arg) is true, freeing each with
 * free_item (if not NULL); the others keep their order. */
void evq_remove_if(struct evq *q, bool (*pred)(void *item, void *arg), void *arg,
                   void (*free_item)(void *));
#endif
