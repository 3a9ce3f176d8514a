/* Unit tests for the network model (net/model/model.c) and the event queue
 * (net/model/queue.c). The golden values pin the order and meaning of the model's
 * draws: a change to them means recorded seeds stop replaying. */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "net/model/net.h"
#include "net/model/queue.h"
#include "tests/unit/suite.h"

#define MS 1000000ULL
#define S 1000000000ULL

/* A conf with latency lo..hi and the given faults (ppm) on every link. */
static struct net_conf conf_with(uint64_t lo, uint64_t hi, uint32_t loss, uint32_t dup, uint32_t reorder)
{
    struct net_conf c;
    net_conf_init(&c);
    c.dflt = (struct net_link){ .lat_lo = lo, .lat_hi = hi, .loss_ppm = loss, .dup_ppm = dup,
                                .reorder_ppm = reorder };
    return c;
}

/* Adds a scheduled partition (c->partitions is owned by the conf). */
static void add_partition(struct net_conf *c, uint64_t at, uint64_t duration, uint64_t a, uint64_t b, bool one_way)
{
    c->partitions = realloc(c->partitions, (c->npartitions + 1) * sizeof *c->partitions);
    ck_assert_ptr_nonnull(c->partitions);
    c->partitions[c->npartitions++] = (struct net_partition){
        .at_ns = at, .duration_ns = duration, .side_a = a, .side_b = b, .one_way = one_way, .line = 1 };
}

static struct net_model *model(const struct net_conf *c, size_t n, uint64_t seed)
{
    struct net_model *m = net_model_new(c, n, seed, 1000 * S);
    ck_assert_ptr_nonnull(m);
    return m;
}

/* ------------------------------------------------------------ the queue */

struct ev { uint64_t at; int n; };

static int freed;
static void count_free(void *item) { freed++; free(item); }

START_TEST(test_queue_empty)
{
    struct evq *q = evq_new();
    uint64_t at = 0;
    ck_assert_uint_eq(evq_len(q), 0);
    ck_assert_uint_eq(evq_next(q), UINT64_MAX);
    ck_assert_ptr_null(evq_pop(q, &at));
    ck_assert_uint_eq(at, UINT64_MAX);
    evq_free(q, NULL);
}
END_TEST

/* Equal times come out in push order, whatever was pushed in between. */
START_TEST(test_queue_fifo_among_equals)
{
    struct evq *q = evq_new();
    int v[300];
    for (int i = 0; i < 300; i++) {
        v[i] = i;
        evq_push(q, i % 3 == 0 ? 50 : (uint64_t)(100 - i % 7), &v[i]);
    }
    ck_assert_uint_eq(evq_len(q), 300);
    ck_assert_uint_eq(evq_next(q), 50);
    uint64_t at, last_at = 0;
    int last = -1;
    for (int k = 0; k < 300; k++) {
        int *x = evq_pop(q, &at);
        ck_assert_ptr_nonnull(x);
        ck_assert_uint_ge(at, last_at);
        if (at == last_at)
            ck_assert_int_gt(*x, last);          /* FIFO */
        ck_assert_uint_eq(at, *x % 3 == 0 ? 50 : (uint64_t)(100 - *x % 7));
        last_at = at;
        last = *x;
    }
    ck_assert_ptr_null(evq_pop(q, NULL));
    evq_free(q, NULL);
}
END_TEST

/* Many random pushes, interleaved with pops: a total order by (time, push). */
START_TEST(test_queue_heap_order)
{
    struct prng p;
    prng_init(&p, 99, "test/queue");
    struct evq *q = evq_new();
    int pushed = 0, popped = 0;
    uint64_t last_at = 0;
    int last_n = -1;
    for (int round = 0; round < 20000; round++) {
        if (prng_below(&p, 3) != 0) {
            struct ev *e = malloc(sizeof *e);
            e->at = last_at + prng_below(&p, 50);       /* never in the past */
            e->n = pushed++;
            evq_push(q, e->at, e);
        } else if (evq_len(q)) {
            uint64_t next = evq_next(q), at;
            struct ev *e = evq_pop(q, &at);
            ck_assert_uint_eq(at, next);
            ck_assert_uint_eq(at, e->at);
            ck_assert_uint_ge(at, last_at);
            if (at == last_at)
                ck_assert_int_gt(e->n, last_n);
            last_at = at;
            last_n = e->n;
            popped++;
            free(e);
        }
        ck_assert_uint_eq(evq_len(q), (size_t)(pushed - popped));
    }
    freed = 0;
    size_t left = evq_len(q);
    evq_free(q, count_free);
    ck_assert_int_eq(freed, (int)left);
}
END_TEST

static bool is_odd(void *item, void *arg)
{
    (void)arg;
    return ((struct ev *)item)->n % 2 == 1;
}

START_TEST(test_queue_remove_if)
{
    struct evq *q = evq_new();
    for (int i = 0; i < 101; i++) {
        struct ev *e = malloc(sizeof *e);
        e->at = (uint64_t)(i % 5);
        e->n = i;
        evq_push(q, e->at, e);
    }
    freed = 0;
    evq_remove_if(q, is_odd, NULL, count_free);
    ck_assert_int_eq(freed, 50);
    ck_assert_uint_eq(evq_len(q), 51);
    uint64_t last_at = 0;
    int last_n = -1;
    while (evq_len(q)) {
        uint64_t at;
        struct ev *e = evq_pop(q, &at);
        ck_assert_int_eq(e->n % 2, 0);
        ck_assert(at > last_at || (at == last_at && e->n > last_n));
        last_at = at;
        last_n = e->n;
        free(e);
    }
    evq_free(q, count_free);
}
END_TEST

/* --------------------------------------------------------- links, draws */

START_TEST(test_conf_defaults)
{
    struct net_conf c;
    net_conf_init(&c);
    ck_assert_uint_eq(c.dflt.lat_lo, 1 * MS);
    ck_assert_uint_eq(c.dflt.lat_hi, 1 * MS);
    ck_assert_uint_eq(c.dflt.loss_ppm + c.dflt.dup_ppm + c.dflt.reorder_ppm, 0);
    ck_assert_uint_eq(c.nlinks + c.npartitions, 0);
    ck_assert_uint_eq(c.partition_every_ns, 0);
    ck_assert_uint_eq(c.partition_for_lo, 1 * S);
    ck_assert_uint_eq(c.partition_for_hi, 5 * S);
    ck_assert(!c.partition_one_way);
    ck_assert_uint_eq(c.loopback_latency_ns, 0);
    ck_assert_uint_eq(c.rto_ns, 200 * MS);
    ck_assert_uint_eq(c.tcp_timeout_ns, 60 * S);

    /* The default network: every datagram arrives once, 1ms later. */
    struct net_model *m = model(&c, 3, 1);
    for (int i = 0; i < 1000; i++) {
        struct net_fate f = net_udp_fate(m, 0, 2, (uint64_t)i * MS);
        ck_assert_int_eq(f.copies, 1);
        ck_assert_uint_eq(f.delay[0], 1 * MS);
        ck_assert(!f.lost && !f.cut && !f.duplicated && !f.reordered);
    }
    ck_assert_uint_eq(net_partition_count(m), 0);
    ck_assert_ptr_null(net_partition_get(m, 0));
    ck_assert_uint_eq(net_next_change(m, 0), UINT64_MAX);
    net_model_free(m);
    net_conf_free(&c);
}
END_TEST

static bool same_fate(struct net_fate a, struct net_fate b)
{
    return a.copies == b.copies && a.delay[0] == b.delay[0] && a.delay[1] == b.delay[1] && a.lost == b.lost &&
           a.cut == b.cut && a.duplicated == b.duplicated && a.reordered == b.reordered;
}

START_TEST(test_same_seed_same_draws)
{
    struct net_conf c = conf_with(1 * MS, 50 * MS, 100000, 50000, 50000);
    struct net_model *a = model(&c, 4, 42), *b = model(&c, 4, 42), *other = model(&c, 4, 43);
    int differ = 0;
    for (int i = 0; i < 10000; i++) {
        uint64_t now = (uint64_t)i * MS;
        struct net_fate fa = net_udp_fate(a, i % 4, (i + 1) % 4, now);
        ck_assert(same_fate(fa, net_udp_fate(b, i % 4, (i + 1) % 4, now)));
        differ += !same_fate(fa, net_udp_fate(other, i % 4, (i + 1) % 4, now));
        bool la, lb;
        ck_assert_uint_eq(net_tcp_arrival(a, 1, 2, now, 0, &la), net_tcp_arrival(b, 1, 2, now, 0, &lb));
        ck_assert(la == lb);
    }
    ck_assert_int_gt(differ, 9000);
    net_model_free(a);
    net_model_free(b);
    net_model_free(other);
}
END_TEST

/* Pinned: the first draws of seed 1. */
START_TEST(test_golden_draws)
{
    struct net_conf c = conf_with(1 * MS, 50 * MS, 100000, 100000, 100000);
    struct net_model *m = model(&c, 2, 1);
    /* Lost (7), duplicated (5) and reordered (8) among them. */
    static const struct { int copies; uint64_t d0, d1; } want[12] = {
        { 1, 2229315, 0 }, { 1, 42396171, 0 }, { 1, 32398188, 0 }, { 1, 10437138, 0 },
        { 1, 34947500, 0 }, { 2, 22605920, 11323638 }, { 1, 5691154, 0 }, { 0, 0, 0 },
        { 1, 81782441, 0 }, { 1, 29011815, 0 }, { 1, 38300697, 0 }, { 1, 48161797, 0 },
    };
    for (int i = 0; i < 12; i++) {
        struct net_fate f = net_udp_fate(m, 0, 1, 0);
        ck_assert_int_eq(f.copies, want[i].copies);
        ck_assert_uint_eq(f.delay[0], want[i].d0);
        ck_assert_uint_eq(f.delay[1], want[i].d1);
    }
    /* The seventh is retransmitted once (200ms). */
    static const uint64_t tcp[8] = {
        3902564, 35346314, 34708353, 2693367, 10549765, 34249317, 228597316, 20344065,
    };
    for (int i = 0; i < 8; i++)
        ck_assert_uint_eq(net_tcp_arrival(m, 1, 0, 0, 0, NULL), tcp[i]);
    net_model_free(m);
}
END_TEST

START_TEST(test_latency_within_range)
{
    struct net_conf c = conf_with(1000, 1009, 0, 0, 0);
    struct net_model *m = model(&c, 2, 5);
    int seen[10] = { 0 };
    for (int i = 0; i < 100000; i++) {
        struct net_fate f = net_udp_fate(m, 0, 1, 0);
        ck_assert_int_eq(f.copies, 1);
        ck_assert_uint_ge(f.delay[0], 1000);
        ck_assert_uint_le(f.delay[0], 1009);
        seen[f.delay[0] - 1000]++;
        uint64_t t = net_tcp_arrival(m, 0, 1, 5 * S, 0, NULL);
        ck_assert_uint_ge(t, 5 * S + 1000);
        ck_assert_uint_le(t, 5 * S + 1009);
    }
    for (int v = 0; v < 10; v++)                /* each about 10000 */
        ck_assert_int_gt(seen[v], 9000);
    net_model_free(m);
}
END_TEST

static int lost_of(uint32_t loss_ppm, int draws)
{
    struct net_conf c = conf_with(1 * MS, 2 * MS, loss_ppm, 0, 0);
    struct net_model *m = model(&c, 2, 11);
    int lost = 0;
    for (int i = 0; i < draws; i++) {
        struct net_fate f = net_udp_fate(m, 1, 0, 0);
        ck_assert(f.lost == (f.copies == 0));
        ck_assert(!f.cut);
        lost += f.lost;
    }
    net_model_free(m);
    return lost;
}

START_TEST(test_loss_rates)
{
    ck_assert_int_eq(lost_of(0, 100000), 0);
    ck_assert_int_eq(lost_of(1000000, 100000), 100000);
    int one = lost_of(10000, 100000);           /* 1%: 1000, sd ~31 */
    ck_assert_int_gt(one, 850);
    ck_assert_int_lt(one, 1150);
    int tenth = lost_of(1000, 100000);          /* 0.1%: 100, sd 10 */
    ck_assert_int_gt(tenth, 50);
    ck_assert_int_lt(tenth, 150);
}
END_TEST

START_TEST(test_duplicates)
{
    struct net_conf c = conf_with(1 * MS, 50 * MS, 0, 1000000, 0);
    struct net_model *m = model(&c, 2, 3);
    int different = 0;
    for (int i = 0; i < 1000; i++) {
        struct net_fate f = net_udp_fate(m, 0, 1, 0);
        ck_assert_int_eq(f.copies, 2);
        ck_assert(f.duplicated);
        for (int k = 0; k < 2; k++) {
            ck_assert_uint_ge(f.delay[k], 1 * MS);
            ck_assert_uint_le(f.delay[k], 50 * MS);
        }
        different += f.delay[0] != f.delay[1];  /* each copy has its own latency */
    }
    ck_assert_int_gt(different, 990);
    net_model_free(m);

    c = conf_with(1 * MS, 1 * MS, 0, 100000, 0);        /* 10% */
    m = model(&c, 2, 3);
    int dups = 0;
    for (int i = 0; i < 100000; i++)
        dups += net_udp_fate(m, 0, 1, 0).copies == 2;
    ck_assert_int_gt(dups, 9500);
    ck_assert_int_lt(dups, 10500);
    net_model_free(m);
}
END_TEST

/* A reordered datagram lands after any datagram sent up to lat_lo later. */
START_TEST(test_reorder)
{
    struct net_conf c = conf_with(10 * MS, 20 * MS, 0, 0, 1000000);
    struct net_model *m = model(&c, 2, 8);
    for (int i = 0; i < 1000; i++) {
        struct net_fate f = net_udp_fate(m, 0, 1, 0);
        ck_assert(f.reordered);
        ck_assert_uint_ge(f.delay[0], 10 * MS + 20 * MS + 1);
        ck_assert_uint_le(f.delay[0], 20 * MS + 40 * MS + 1);
    }
    net_model_free(m);

    c = conf_with(10 * MS, 20 * MS, 0, 0, 10000);       /* 1% */
    m = model(&c, 2, 8);
    int reordered = 0;
    for (int i = 0; i < 100000; i++) {
        struct net_fate f = net_udp_fate(m, 0, 1, 0);
        reordered += f.reordered;
        ck_assert(f.reordered == (f.delay[0] > 20 * MS));
    }
    ck_assert_int_gt(reordered, 850);
    ck_assert_int_lt(reordered, 1150);
    net_model_free(m);
}
END_TEST

/* Within a machine: loopback latency, never lost, cut or duplicated, and no
 * draw, so local traffic does not shift the fates of remote traffic. */
START_TEST(test_loopback)
{
    struct net_conf c = conf_with(1 * MS, 50 * MS, 1000000, 1000000, 1000000);
    c.loopback_latency_ns = 10000;
    add_partition(&c, 0, 0, 1, 2, false);
    struct net_model *m = model(&c, 2, 4);
    for (int i = 0; i < 100; i++) {
        struct net_fate f = net_udp_fate(m, 1, 1, (uint64_t)i);
        ck_assert_int_eq(f.copies, 1);
        ck_assert_uint_eq(f.delay[0], 10000);
        ck_assert(!f.lost && !f.cut && !f.duplicated && !f.reordered);
        ck_assert(!net_cut(m, 0, 0, (uint64_t)i));
        bool lost = true;
        ck_assert_uint_eq(net_tcp_arrival(m, 0, 0, 5 * S, 0, &lost), 5 * S + 10000);
        ck_assert(!lost);
        ck_assert_uint_eq(net_tcp_arrival(m, 0, 0, 5 * S, 7 * S, &lost), 7 * S);   /* in order */
    }
    net_model_free(m);
    net_conf_free(&c);

    c = conf_with(1 * MS, 50 * MS, 300000, 300000, 300000);
    struct net_model *a = model(&c, 2, 4), *b = model(&c, 2, 4);
    for (int i = 0; i < 1000; i++) {
        net_udp_fate(a, 0, 0, 0);
        net_tcp_arrival(a, 1, 1, 0, 0, NULL);
        ck_assert(same_fate(net_udp_fate(a, 0, 1, 0), net_udp_fate(b, 0, 1, 0)));
    }
    net_model_free(a);
    net_model_free(b);
}
END_TEST

/* [link a b] applies both ways; other pairs keep the default. */
START_TEST(test_link_override)
{
    struct net_conf c = conf_with(1 * MS, 1 * MS, 0, 0, 0);
    struct net_link_override o = { .a = 2, .b = 0, .link = { .lat_lo = 100 * MS, .lat_hi = 100 * MS } };
    c.links = malloc(sizeof o);
    c.links[0] = o;
    c.nlinks = 1;
    struct net_model *m = model(&c, 3, 6);
    ck_assert_uint_eq(net_udp_fate(m, 0, 2, 0).delay[0], 100 * MS);
    ck_assert_uint_eq(net_udp_fate(m, 2, 0, 0).delay[0], 100 * MS);
    ck_assert_uint_eq(net_udp_fate(m, 0, 1, 0).delay[0], 1 * MS);
    ck_assert_uint_eq(net_udp_fate(m, 1, 2, 0).delay[0], 1 * MS);
    ck_assert_uint_eq(net_tcp_arrival(m, 2, 0, S, 0, NULL), S + 100 * MS);
    net_model_free(m);
    c.links[0].link.loss_ppm = 1000000;
    m = model(&c, 3, 6);
    ck_assert(net_udp_fate(m, 0, 2, 0).lost);
    ck_assert(net_udp_fate(m, 2, 0, 0).lost);
    ck_assert_int_eq(net_udp_fate(m, 1, 2, 0).copies, 1);
    net_model_free(m);
    net_conf_free(&c);
}
END_TEST

/* ------------------------------------------------------------ partitions */

START_TEST(test_partition_symmetric)
{
    struct net_conf c;
    net_conf_init(&c);
    add_partition(&c, 5 * S, 10 * S, 0x3, 0x4, false);      /* {0,1} | {2} */
    struct net_model *m = model(&c, 4, 1);
    for (int from = 0; from < 2; from++) {
        ck_assert(!net_cut(m, from, 2, 5 * S - 1));
        ck_assert(net_cut(m, from, 2, 5 * S));
        ck_assert(net_cut(m, 2, from, 5 * S));
        ck_assert(net_cut(m, from, 2, 15 * S - 1));
        ck_assert(net_cut(m, 2, from, 15 * S - 1));
        ck_assert(!net_cut(m, from, 2, 15 * S));                /* healed */
        ck_assert(!net_cut(m, 2, from, 15 * S));
        ck_assert(!net_cut(m, from, 3, 10 * S));                /* 3 is on neither side */
        ck_assert(!net_cut(m, 3, 2, 10 * S));
    }
    ck_assert(!net_cut(m, 0, 1, 10 * S));                       /* same side */
    struct net_fate f = net_udp_fate(m, 2, 0, 6 * S);
    ck_assert_int_eq(f.copies, 0);
    ck_assert(f.cut && !f.lost);
    ck_assert_int_eq(net_udp_fate(m, 2, 0, 15 * S).copies, 1);

    ck_assert_uint_eq(net_partition_count(m), 1);
    const struct net_partition *p = net_partition_get(m, 0);
    ck_assert_uint_eq(p->at_ns, 5 * S);
    ck_assert_uint_eq(p->duration_ns, 10 * S);
    ck_assert(!p->random);
    net_model_free(m);
    net_conf_free(&c);
}
END_TEST

START_TEST(test_partition_one_way_and_forever)
{
    struct net_conf c;
    net_conf_init(&c);
    add_partition(&c, 1 * S, 0, 0x1, 0x6, true);            /* 0 -> {1,2}, forever */
    struct net_model *m = model(&c, 3, 1);
    ck_assert(!net_cut(m, 0, 1, 1 * S - 1));
    ck_assert(net_cut(m, 0, 1, 1 * S));
    ck_assert(net_cut(m, 0, 2, UINT64_MAX - 1));
    ck_assert(!net_cut(m, 1, 0, 2 * S));                    /* the other way works */
    ck_assert(!net_cut(m, 2, 0, 2 * S));
    ck_assert(!net_cut(m, 1, 2, 2 * S));
    ck_assert_uint_eq(net_next_change(m, 0), 1 * S);
    ck_assert_uint_eq(net_next_change(m, 1 * S), UINT64_MAX);
    net_model_free(m);
    net_conf_free(&c);
}
END_TEST

START_TEST(test_next_change)
{
    struct net_conf c;
    net_conf_init(&c);
    add_partition(&c, 8 * S, 0, 0x1, 0x2, false);
    add_partition(&c, 5 * S, 10 * S, 0x1, 0x2, false);
    add_partition(&c, 5 * S, 1 * S, 0x2, 0x4, false);
    struct net_model *m = model(&c, 3, 1);
    ck_assert_uint_eq(net_next_change(m, 0), 5 * S);
    ck_assert_uint_eq(net_next_change(m, 5 * S - 1), 5 * S);
    ck_assert_uint_eq(net_next_change(m, 5 * S), 6 * S);
    ck_assert_uint_eq(net_next_change(m, 6 * S), 8 * S);
    ck_assert_uint_eq(net_next_change(m, 8 * S), 15 * S);
    ck_assert_uint_eq(net_next_change(m, 15 * S), UINT64_MAX);
    /* Listed in start order, file order among equal starts. */
    ck_assert_uint_eq(net_partition_count(m), 3);
    ck_assert_uint_eq(net_partition_get(m, 0)->duration_ns, 10 * S);
    ck_assert_uint_eq(net_partition_get(m, 1)->duration_ns, 1 * S);
    ck_assert_uint_eq(net_partition_get(m, 2)->at_ns, 8 * S);
    net_model_free(m);
    net_conf_free(&c);
}
END_TEST

static bool cut_by_brute_force(const struct net_model *m, int from, int to, uint64_t now)
{
    if (from == to)
        return false;
    for (size_t i = 0; i < net_partition_count(m); i++) {
        const struct net_partition *p = net_partition_get(m, i);
        bool on = p->at_ns <= now && (p->duration_ns == 0 || now - p->at_ns < p->duration_ns);
        uint64_t f = 1ULL << from, t = 1ULL << to;
        if (on && (((p->side_a & f) && (p->side_b & t)) || (!p->one_way && (p->side_b & f) && (p->side_a & t))))
            return true;
    }
    return false;
}

static bool same_partitions(const struct net_model *a, const struct net_model *b)
{
    if (net_partition_count(a) != net_partition_count(b))
        return false;
    for (size_t i = 0; i < net_partition_count(a); i++) {
        const struct net_partition *x = net_partition_get(a, i), *y = net_partition_get(b, i);
        if (x->at_ns != y->at_ns || x->duration_ns != y->duration_ns || x->side_a != y->side_a ||
            x->side_b != y->side_b || x->one_way != y->one_way)
            return false;
    }
    return true;
}

START_TEST(test_random_partitions)
{
    struct net_conf c = conf_with(1 * MS, 50 * MS, 100000, 0, 0);
    c.partition_every_ns = 10 * S;
    c.partition_one_way = true;
    add_partition(&c, 100 * S, 50 * S, 0x1, 0x2, false);    /* scheduled ones too */
    struct net_model *m = net_model_new(&c, 5, 77, 1000 * S);
    ck_assert_ptr_nonnull(m);
    size_t n = net_partition_count(m);
    ck_assert_uint_gt(n, 50);                   /* ~1000s / (10s + 3s) */
    ck_assert_uint_lt(n, 110);
    int one_way = 0, scheduled = 0;
    uint64_t last_at = 0, last_random_end = 0;
    for (size_t i = 0; i < n; i++) {
        const struct net_partition *p = net_partition_get(m, i);
        ck_assert_uint_ge(p->at_ns, last_at);
        last_at = p->at_ns;
        if (!p->random) {
            scheduled++;
            continue;
        }
        ck_assert_uint_lt(p->at_ns, 1000 * S);
        ck_assert_uint_gt(p->at_ns, last_random_end);       /* back to back, never overlapping */
        ck_assert_uint_ge(p->duration_ns, 1 * S);
        ck_assert_uint_le(p->duration_ns, 5 * S);
        ck_assert_uint_ne(p->side_a, 0);
        ck_assert_uint_ne(p->side_b, 0);
        ck_assert_uint_eq(p->side_a & p->side_b, 0);
        ck_assert_uint_eq(p->side_a | p->side_b, 0x1f);
        ck_assert_int_eq(p->line, 0);
        one_way += p->one_way;
        last_random_end = p->at_ns + p->duration_ns;
    }
    ck_assert_int_eq(scheduled, 1);
    ck_assert_int_gt(one_way, (int)n / 4);      /* about half */
    ck_assert_int_lt(one_way, 3 * (int)n / 4);

    /* net_cut and net_next_change agree with a scan of the list. */
    for (uint64_t t = 0; t < 1100 * S; t += 97 * MS) {
        for (int from = 0; from < 5; from++)
            for (int to = 0; to < 5; to++)
                ck_assert(net_cut(m, from, to, t) == cut_by_brute_force(m, from, to, t));
        uint64_t want = UINT64_MAX;
        for (size_t i = 0; i < n; i++) {
            const struct net_partition *p = net_partition_get(m, i);
            if (p->at_ns > t && p->at_ns < want) want = p->at_ns;
            if (p->at_ns + p->duration_ns > t && p->at_ns + p->duration_ns < want) want = p->at_ns + p->duration_ns;
        }
        ck_assert_uint_eq(net_next_change(m, t), want);
    }

    /* Drawn from the seed alone: traffic does not move them. */
    struct net_model *same = net_model_new(&c, 5, 77, 1000 * S), *other = net_model_new(&c, 5, 78, 1000 * S);
    for (int i = 0; i < 1000; i++)
        net_udp_fate(m, 0, 1, 0);
    ck_assert(same_partitions(m, same));
    ck_assert(!same_partitions(m, other));
    net_model_free(same);
    net_model_free(other);
    net_model_free(m);

    /* Never one-way unless allowed; none at all with fewer than 2 machines
     * or more than sides can hold. */
    c.partition_one_way = false;
    m = model(&c, 2, 77);
    for (size_t i = 0; i < net_partition_count(m); i++) {
        ck_assert(!net_partition_get(m, i)->one_way || !net_partition_get(m, i)->random);
        ck_assert_uint_eq(net_partition_get(m, i)->side_a | net_partition_get(m, i)->side_b, 0x3);
    }
    net_model_free(m);
    m = model(&c, 1, 77);
    ck_assert_uint_eq(net_partition_count(m), 1);
    net_model_free(m);
    ck_assert_ptr_null(net_model_new(&c, NET_MAX_MACHINES + 1, 77, 1000 * S));
    m = model(&c, NET_MAX_MACHINES, 77);
    ck_assert_uint_gt(net_partition_count(m), 10);
    for (size_t i = 0; i < net_partition_count(m); i++)
        if (net_partition_get(m, i)->random)
            ck_assert_uint_eq(net_partition_get(m, i)->side_a | net_partition_get(m, i)->side_b, UINT64_MAX);
    net_model_free(m);
    net_conf_free(&c);
}
END_TEST

/* Pinned: seed 7's first random partitions among 4 machines. */
START_TEST(test_golden_partitions)
{
    struct net_conf c;
    net_conf_init(&c);
    c.partition_every_ns = 10 * S;
    c.partition_one_way = true;
    struct net_model *m = net_model_new(&c, 4, 7, 60 * S);
    static const struct net_partition want[] = {
        { .at_ns = 14936019997ULL, .duration_ns = 1615243177ULL, .side_a = 0x7, .side_b = 0x8, .one_way = true },
        { .at_ns = 33289147548ULL, .duration_ns = 2910590169ULL, .side_a = 0x9, .side_b = 0x6, .one_way = true },
        { .at_ns = 46809032412ULL, .duration_ns = 3787118042ULL, .side_a = 0x9, .side_b = 0x6, .one_way = true },
        { .at_ns = 52143900117ULL, .duration_ns = 3847792120ULL, .side_a = 0x2, .side_b = 0xd, .one_way = false },
        { .at_ns = 59311768874ULL, .duration_ns = 1483525085ULL, .side_a = 0xe, .side_b = 0x1, .one_way = true },
    };
    ck_assert_uint_eq(net_partition_count(m), sizeof want / sizeof want[0]);
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        const struct net_partition *p = net_partition_get(m, i);
        ck_assert_uint_eq(p->at_ns, want[i].at_ns);
        ck_assert_uint_eq(p->duration_ns, want[i].duration_ns);
        ck_assert_uint_eq(p->side_a, want[i].side_a);
        ck_assert_uint_eq(p->side_b, want[i].side_b);
        ck_assert(p->one_way == want[i].one_way);
        ck_assert(p->random);
    }
    net_model_free(m);
}
END_TEST

/* ------------------------------------------------------------------- TCP */

START_TEST(test_tcp_in_order)
{
    struct net_conf c = conf_with(1 * MS, 50 * MS, 0, 1000000, 1000000);      /* UDP-only faults */
    struct net_model *m = model(&c, 2, 9);
    uint64_t prev = 0;
    int held = 0;
    for (int i = 0; i < 10000; i++) {
        uint64_t now = (uint64_t)i * 100000;            /* every 0.1ms: faster than the jitter */
        bool lost = true;
        uint64_t t = net_tcp_arrival(m, 0, 1, now, prev, &lost);
        ck_assert(!lost);
        ck_assert_uint_ge(t, prev);
        ck_assert_uint_ge(t, now + 1 * MS);
        ck_assert_uint_le(t, now + 50 * MS > prev ? now + 50 * MS : prev);
        held += t == prev;
        prev = t;
    }
    ck_assert_int_gt(held, 1000);               /* the stream held many back */
    net_model_free(m);
}
END_TEST

/* Loss delays a segment by rto, 2 rto, 4 rto ... (each step at most 60s),
 * and past the timeout the connection gives up. */
static void check_retransmissions(uint64_t rto, uint64_t timeout, const uint64_t *extra, size_t nextra)
{
    struct net_conf c = conf_with(10 * MS, 10 * MS, 500000, 0, 0);
    c.rto_ns = rto;
    c.tcp_timeout_ns = timeout;
    struct net_model *m = model(&c, 2, 10);
    int count[16] = { 0 }, gave_up = 0;
    for (int i = 0; i < 10000; i++) {
        bool lost;
        uint64_t t = net_tcp_arrival(m, 1, 0, S, 0, &lost);
        if (t == UINT64_MAX) {
            ck_assert(lost);
            gave_up++;
            continue;
        }
        size_t k = 0;
        while (k < nextra && t != S + 10 * MS + extra[k])
            k++;
        ck_assert_msg(k < nextra, "unexpected arrival %llu", (unsigned long long)t);
        ck_assert(lost == (k > 0));
        count[k]++;
    }
    for (size_t k = 0; k < nextra; k++)         /* 1/2, 1/4, 1/8 ... */
        ck_assert_int_gt(count[k], 10000 >> (k + 2));
    ck_assert_int_gt(gave_up, 10000 >> (nextra + 2));
    net_model_free(m);
}

START_TEST(test_tcp_loss)
{
    const uint64_t r = 200 * MS;
    /* Timeout 1s: 0, 200ms, 600ms arrive; a fourth try (1.4s) is too late. */
    check_retransmissions(r, 1 * S, (const uint64_t[]){ 0, r, 3 * r }, 3);
    /* Steps of 40s, 60s, 60s (capped, not 80s and 160s) within 3m. */
    check_retransmissions(40 * S, 180 * S, (const uint64_t[]){ 0, 40 * S, 100 * S, 160 * S }, 4);

    struct net_conf c = conf_with(1 * MS, 1 * MS, 1000000, 0, 0);      /* everything lost */
    struct net_model *m = model(&c, 2, 1);
    bool lost = false;
    ck_assert_uint_eq(net_tcp_arrival(m, 0, 1, 0, 0, &lost), UINT64_MAX);
    ck_assert(lost);
    net_model_free(m);
}
END_TEST

START_TEST(test_tcp_partitions)
{
    struct net_conf c = conf_with(10 * MS, 10 * MS, 0, 0, 0);
    c.tcp_timeout_ns = 60 * S;
    add_partition(&c, 1 * S, 2 * S, 0x1, 0x2, false);       /* [1s, 3s) */
    add_partition(&c, 3 * S, 1 * S, 0x2, 0x1, true);        /* then 1 -> 0 until 4s */
    add_partition(&c, 10 * S, 5 * S, 0x1, 0x2, false);      /* [10s, 15s) covers [11s, 12s) */
    add_partition(&c, 11 * S, 1 * S, 0x1, 0x2, false);
    add_partition(&c, 100 * S, 61 * S, 0x1, 0x2, false);    /* longer than the timeout */
    add_partition(&c, 300 * S, 0, 0x1, 0x2, false);         /* forever */
    struct net_model *m = model(&c, 2, 2);
    bool lost = true;
    ck_assert_uint_eq(net_tcp_arrival(m, 0, 1, 500 * MS, 0, &lost), 510 * MS);
    ck_assert(!lost);
    ck_assert_uint_eq(net_tcp_arrival(m, 0, 1, 1500 * MS, 0, &lost), 3 * S + 10 * MS);   /* held */
    ck_assert(!lost);
    ck_assert_uint_eq(net_tcp_arrival(m, 1, 0, 1500 * MS, 0, NULL), 4 * S + 10 * MS);    /* held twice */
    ck_assert_uint_eq(net_tcp_arrival(m, 0, 1, 11500 * MS, 0, NULL), 15 * S + 10 * MS);
    /* A later segment still waits for the earlier one. */
    ck_assert_uint_eq(net_tcp_arrival(m, 0, 1, 2 * S, 20 * S, NULL), 20 * S);
    ck_assert_uint_eq(net_tcp_arrival(m, 0, 1, 100 * S, 0, NULL), UINT64_MAX);
    ck_assert_uint_eq(net_tcp_arrival(m, 0, 1, 130 * S, 0, NULL), 161 * S + 10 * MS);
    ck_assert_uint_eq(net_tcp_arrival(m, 0, 1, 300 * S, 0, NULL), UINT64_MAX);
    ck_assert_uint_eq(net_tcp_arrival(m, 0, 1, UINT64_MAX - 1, 0, NULL), UINT64_MAX);
    net_model_free(m);
    net_conf_free(&c);
}
END_TEST

START_TEST(test_tcp_timeout)
{
    struct net_conf c = conf_with(10 * MS, 10 * MS, 0, 0, 0);
    c.tcp_timeout_ns = 5 * S;
    struct net_model *m = model(&c, 2, 1);
    /* Stuck behind a segment that arrives only after the timeout. */
    ck_assert_uint_eq(net_tcp_arrival(m, 0, 1, 1 * S, 6 * S, NULL), 6 * S);
    ck_assert_uint_eq(net_tcp_arrival(m, 0, 1, 1 * S, 6 * S + 1, NULL), UINT64_MAX);
    ck_assert_uint_eq(net_tcp_arrival(m, 0, 0, 1 * S, 6 * S + 1, NULL), UINT64_MAX);
    net_model_free(m);
    c.dflt.lat_lo = c.dflt.lat_hi = 6 * S;      /* a link slower than the timeout */
    m = model(&c, 2, 1);
    ck_assert_uint_eq(net_tcp_arrival(m, 0, 1, 0, 0, NULL), UINT64_MAX);
    net_model_free(m);
}
END_TEST

/* ---------------------------------------------------- faults of the plan */

static void add_burst(struct net_model *m, uint64_t at, uint64_t duration, uint64_t machines, uint32_t loss,
                      uint32_t dup)
{
    struct net_burst b = { .at_ns = at, .duration_ns = duration, .machines = machines, .loss_ppm = loss,
                           .dup_ppm = dup, .name = "b" };
    ck_assert(net_model_add_burst(m, &b));
}

/* A partition added to a model cuts like a scheduled one, in start order. */
START_TEST(test_added_partition)
{
    struct net_conf c = conf_with(1 * MS, 1 * MS, 0, 0, 0);
    add_partition(&c, 5 * S, 1 * S, 0x1, 0x2, false);
    struct net_model *m = model(&c, 3, 1);
    struct net_partition p = { .at_ns = 1 * S, .duration_ns = 2 * S, .side_a = 0x4, .side_b = 0x3, .one_way = true,
                               .name = "cut" };
    ck_assert(net_model_add_partition(m, &p));
    ck_assert_uint_eq(net_partition_count(m), 2);
    ck_assert_str_eq(net_partition_get(m, 0)->name, "cut");
    ck_assert_ptr_null(net_partition_get(m, 1)->name);
    ck_assert(net_cut(m, 2, 0, 1 * S));
    ck_assert(!net_cut(m, 0, 2, 1 * S));                    /* one-way */
    ck_assert(!net_cut(m, 2, 0, 3 * S));                    /* healed */
    ck_assert(net_cut(m, 0, 1, 5 * S));
    ck_assert_uint_eq(net_next_change(m, 0), 1 * S);
    ck_assert_uint_eq(net_next_change(m, 1 * S), 3 * S);
    net_model_free(m);
    net_conf_free(&c);
}
END_TEST

/* Bursts: loss and duplication while they last, on the links they touch,
 * on top of the link's own; their edges are changes. */
START_TEST(test_bursts_udp)
{
    struct net_conf c = conf_with(1 * MS, 1 * MS, 0, 0, 0);
    struct net_model *m = model(&c, 3, 4);
    add_burst(m, 1 * S, 1 * S, 0x2, 1000000, 0);           /* all loss on links of machine 1, [1s, 2s) */
    add_burst(m, 3 * S, 0, 0, 0, 1000000);                  /* all duplicated from 3s on */
    ck_assert_uint_eq(net_burst_count(m), 2);
    ck_assert_uint_eq(net_next_change(m, 0), 1 * S);
    ck_assert_uint_eq(net_next_change(m, 1 * S), 2 * S);
    ck_assert_uint_eq(net_next_change(m, 2 * S), 3 * S);
    ck_assert_uint_eq(net_next_change(m, 3 * S), UINT64_MAX);
    ck_assert_int_eq(net_udp_fate(m, 0, 1, 999 * MS).copies, 1);
    ck_assert(net_udp_fate(m, 0, 1, 1 * S).lost);
    ck_assert(net_udp_fate(m, 1, 2, 1500 * MS).lost);
    ck_assert_int_eq(net_udp_fate(m, 0, 2, 1500 * MS).copies, 1);   /* not a link of machine 1 */
    ck_assert_int_eq(net_udp_fate(m, 0, 1, 2 * S).copies, 1);
    struct net_fate f = net_udp_fate(m, 2, 0, 3 * S);
    ck_assert(f.duplicated);
    ck_assert_int_eq(f.copies, 2);
    ck_assert_int_eq(net_udp_fate(m, 1, 1, 3 * S).copies, 1);       /* within a machine: never */
    net_model_free(m);

    /* 50% on a 50% link: 75% lost. */
    c.dflt.loss_ppm = 500000;
    m = model(&c, 2, 5);
    add_burst(m, 0, 0, 0, 500000, 0);
    int lost = 0;
    for (int i = 0; i < 100000; i++)
        lost += net_udp_fate(m, 0, 1, 0).lost;
    ck_assert_int_gt(lost, 74000);
    ck_assert_int_lt(lost, 76000);
    net_model_free(m);
}
END_TEST

/* A burst draws nothing outside its time: a model with a burst later draws
 * what a model without one does. */
START_TEST(test_bursts_move_no_draws)
{
    struct net_conf c = conf_with(1 * MS, 50 * MS, 100000, 100000, 100000);
    struct net_model *a = model(&c, 2, 1), *b = model(&c, 2, 1);
    add_burst(b, 100 * S, 1 * S, 0, 300000, 300000);
    for (int i = 0; i < 1000; i++) {
        struct net_fate x = net_udp_fate(a, 0, 1, 0), y = net_udp_fate(b, 0, 1, 0);
        ck_assert(same_fate(x, y));
        ck_assert_uint_eq(net_tcp_arrival(a, 1, 0, 0, 0, NULL), net_tcp_arrival(b, 1, 0, 0, 0, NULL));
    }
    net_model_free(a);
    net_model_free(b);
}
END_TEST

/* TCP under a loss burst: retransmitted, each try meeting the loss of its
 * own time, so it gets through once the burst ends; duplication never
 * touches a stream. */
START_TEST(test_bursts_tcp)
{
    struct net_conf c = conf_with(10 * MS, 10 * MS, 0, 0, 0);
    struct net_model *m = model(&c, 2, 6);
    add_burst(m, 1 * S, 1 * S, 0, 1000000, 1000000);        /* [1s, 2s): everything lost */
    bool lost = false;
    /* Sent at 1.5s: lost, retried at 1.7s (lost), at 2.1s (through). */
    ck_assert_uint_eq(net_tcp_arrival(m, 0, 1, 1500 * MS, 0, &lost), 2110 * MS);
    ck_assert(lost);
    ck_assert_uint_eq(net_tcp_arrival(m, 0, 1, 2 * S, 0, &lost), 2010 * MS);
    ck_assert(!lost);
    net_model_free(m);
}
END_TEST

/* A warm start at 300 s: the first seed's random partitions up to then (and
 * one active across it, kept whole), the second seed's after, never
 * overlapping; packet draws from the second seed; scheduled ones kept. */
START_TEST(test_reseed)
{
    struct net_conf c = conf_with(1 * MS, 50 * MS, 100000, 0, 0);
    c.partition_every_ns = 10 * S;
    add_partition(&c, 500 * S, 5 * S, 0x1, 0x2, false);
    uint64_t at = 300 * S;
    struct net_model *w = model(&c, 5, 77), *a = model(&c, 5, 77), *b = model(&c, 5, 78);
    ck_assert(net_model_reseed(w, 78, at, 1000 * S));
    uint64_t last_random_end = 0, boundary = at;
    size_t from_a = 0, from_b = 0, scheduled = 0;
    for (size_t i = 0; i < net_partition_count(a); i++) {
        const struct net_partition *p = net_partition_get(a, i);
        if (p->random && p->at_ns < at && p->at_ns + p->duration_ns > boundary) boundary = p->at_ns + p->duration_ns;
    }
    for (size_t i = 0; i < net_partition_count(w); i++) {
        const struct net_partition *p = net_partition_get(w, i);
        if (!p->random) {
            scheduled++;
            continue;
        }
        ck_assert_uint_gt(p->at_ns, last_random_end);
        last_random_end = p->at_ns + p->duration_ns;
        const struct net_model *src = p->at_ns < at ? a : b;
        bool found = false;
        for (size_t j = 0; j < net_partition_count(src) && !found; j++) {
            const struct net_partition *q = net_partition_get(src, j);
            found = q->at_ns == p->at_ns && q->duration_ns == p->duration_ns && q->side_a == p->side_a;
        }
        ck_assert_msg(found, "partition at %llu is not its seed's", (unsigned long long)p->at_ns);
        if (p->at_ns < at) from_a++;
        else {
            ck_assert_uint_ge(p->at_ns, boundary);
            from_b++;
        }
    }
    ck_assert_uint_eq(scheduled, 1);
    ck_assert_uint_gt(from_a, 10);
    ck_assert_uint_gt(from_b, 20);
    /* Packets: the reseeded model draws what a fresh model of seed 78 does. */
    struct net_model *fresh = model(&c, 5, 78);
    for (int i = 0; i < 200; i++) {
        struct net_fate x = net_udp_fate(w, 0, 1, at), y = net_udp_fate(fresh, 0, 1, at);
        ck_assert(x.copies == y.copies && x.delay[0] == y.delay[0] && x.delay[1] == y.delay[1]);
    }
    net_model_free(fresh);
    net_model_free(w);
    net_model_free(a);
    net_model_free(b);
    net_conf_free(&c);
}
END_TEST

static Suite *net_suite(void)
{
    Suite *s = suite_create("net");
    TCase *tc = tcase_create("queue");
    tcase_add_test(tc, test_queue_empty);
    tcase_add_test(tc, test_queue_fifo_among_equals);
    tcase_add_test(tc, test_queue_heap_order);
    tcase_add_test(tc, test_queue_remove_if);
    suite_add_tcase(s, tc);

    tc = tcase_create("draws");
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, test_conf_defaults);
    tcase_add_test(tc, test_same_seed_same_draws);
    tcase_add_test(tc, test_golden_draws);
    tcase_add_test(tc, test_latency_within_range);
    tcase_add_test(tc, test_loss_rates);
    tcase_add_test(tc, test_duplicates);
    tcase_add_test(tc, test_reorder);
    tcase_add_test(tc, test_loopback);
    tcase_add_test(tc, test_link_override);
    suite_add_tcase(s, tc);

    tc = tcase_create("partitions");
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, test_partition_symmetric);
    tcase_add_test(tc, test_partition_one_way_and_forever);
    tcase_add_test(tc, test_next_change);
    tcase_add_test(tc, test_random_partitions);
    tcase_add_test(tc, test_golden_partitions);
    tcase_add_test(tc, test_reseed);
    suite_add_tcase(s, tc);

    tc = tcase_create("tcp");
    tcase_add_test(tc, test_tcp_in_order);
    tcase_add_test(tc, test_tcp_loss);
    tcase_add_test(tc, test_tcp_partitions);
    tcase_add_test(tc, test_tcp_timeout);
    tcase_add_test(tc, test_added_partition);
    tcase_add_test(tc, test_bursts_udp);
    tcase_add_test(tc, test_bursts_move_no_draws);
    tcase_add_test(tc, test_bursts_tcp);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return run_suite(net_suite());
}
