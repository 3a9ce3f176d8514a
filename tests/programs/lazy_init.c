/* A lazy initialisation race: two threads find the shared cache missing
 * and both build one (getpid() stands for the log write inside the build);
 * the second replaces the first under the other thread's feet, and an
 * assertion fails. Exit 0 when the threads agreed on one cache. */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

struct cache { int n; int slots[16]; };
static struct cache *volatile shared;   /* read afresh, whatever the optimizer */

static struct cache *get_cache(void)
{
    if (!shared) {                      /* not thread-safe */
        struct cache *c = calloc(1, sizeof *c);
        getpid();
        shared = c;
    }
    return shared;
}

static void put(int v)
{
    struct cache *c = get_cache();
    c->slots[c->n++] = v;
    getppid();
    if (c != shared) {
        fprintf(stderr, "lazy_init: cache replaced under us\n");
        exit(1);
    }
}

static void *worker(void *arg)
{
    for (int i = 0; i < 3; i++) put(i);
    return arg;
}

int main(void)
{
    pthread_t a, b;
    pthread_create(&a, NULL, worker, NULL);
    pthread_create(&b, NULL, worker, NULL);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    printf("n=%d\n", shared->n);
    return 0;
}
