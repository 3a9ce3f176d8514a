/* The event queue (queue.h): a binary min-heap in an array. Each entry
 * carries a sequence number taken at push time, which breaks ties between
 * equal times, so the order is total and FIFO among equals. */
#include "net/model/queue.h"
#include "base/xalloc.h"
#include <stdio.h>
#include <stdlib.h>

struct evq_entry {
    uint64_t at;
    uint64_t seq;               /* push order: the tie-break */
    void *item;
};

struct evq {
    struct evq_entry *heap;
    size_t len, cap;
    uint64_t next_seq;
};

static void out_of_memory(void)
{
    fputs("dsim: out of memory (event queue)\n", stderr);
    abort();
}

static bool before(const struct evq_entry *x, const struct evq_entry *y)
{
    return x->at != y->at ? x->at < y->at : x->seq < y->seq;
}

static void swap(struct evq_entry *x, struct evq_entry *y)
{
    struct evq_entry t = *x;
    *x = *y;
    *y = t;
}

static void sift_up(struct evq_entry *h, size_t i)
{
    while (i > 0 && before(&h[i], &h[(i - 1) / 2])) {
        swap(&h[i], &h[(i - 1) / 2]);
        i = (i - 1) / 2;
    }
}

static void sift_down(struct evq_entry *h, size_t len, size_t i)
{
    for (;;) {
        size_t least = i, l = 2 * i + 1, r = l + 1;
        if (l < len && before(&h[l], &h[least]))
            least = l;
        if (r < len && before(&h[r], &h[least]))
            least = r;
        if (least == i)
            return;
        swap(&h[i], &h[least]);
        i = least;
    }
}

struct evq *evq_new(void)
{
    struct evq *q = calloc(1, sizeof *q);
    if (!q)
        out_of_memory();
    return q;
}

void evq_free(struct evq *q, void (*free_item)(void *))
{
    if (!q)
        return;
    for (size_t i = 0; free_item && i < q->len; i++)
        free_item(q->heap[i].item);
    free(q->heap);
    free(q);
}

void evq_push(struct evq *q, uint64_t at, void *item)
{
    GROW(q->heap, q->len, q->cap);
    q->heap[q->len] = (struct evq_entry){ .at = at, .seq = q->next_seq++, .item = item };
    sift_up(q->heap, q->len++);
}

uint64_t evq_next(const struct evq *q)
{
    return q->len ? q->heap[0].at : UINT64_MAX;
}

void *evq_pop(struct evq *q, uint64_t *at)
{
    if (q->len == 0) {
        if (at)
            *at = UINT64_MAX;
        return NULL;
    }
    struct evq_entry top = q->heap[0];
    q->heap[0] = q->heap[--q->len];
    sift_down(q->heap, q->len, 0);
    if (at)
        *at = top.at;
    return top.item;
}

size_t evq_len(const struct evq *q)
{
    return q->len;
}

void evq_remove_if(struct evq *q, bool (*pred)(void *item, void *arg), void *arg,
                   void (*free_item)(void *))
{
    size_t kept = 0;
    for (size_t i = 0; i < q->len; i++) {
        if (pred(q->heap[i].item, arg)) {
            if (free_item)
                free_item(q->heap[i].item);
        } else {
            q->heap[kept++] = q->heap[i];
        }
    }
    q->len = kept;
    /* Rebuild the heap; the entries keep their sequence numbers, so the
     * order among the survivors is unchanged. */
    for (size_t i = kept / 2; i-- > 0;)
        sift_down(q->heap, kept, i);
}
