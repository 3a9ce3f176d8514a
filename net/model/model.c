/* The network model (net.h): what the network does to each packet.
 *
 * Two PRNG streams, both derived from the run's seed:
 *   "net"            per-packet draws, in the order packets are sent;
 *   "net/partitions" random partitions, all drawn by net_model_new, so they
 *                    do not move when the traffic changes.
 *
 * VERSION PINNED, like prng.c: the order and meaning of the draws below is
 * part of every recorded seed (tests/unit/test_net.c holds golden values).
 *   chance(ppm)      no draw at 0 or at 1000000 and more; else
 *                    prng_below(1000000) < ppm.
 *   between(lo, hi)  no draw if lo == hi; else lo + prng_below(hi - lo + 1).
 *   UDP datagram     loss chance; duplicate chance; then for each copy its
 *                    latency, its reorder chance and, if reordered, its
 *                    extra delay between(lat_hi, 2 lat_hi) + 1.
 *   TCP segment      latency; then loss chances until one fails.
 *   Random partition the healthy gap before it, between(1, 2 x every); its
 *                    side_a, 1 + prng_below(2^n - 2) as a bitmask of the n
 *                    machines; its length, between(for_lo, for_hi); and, if
 *                    partition_one_way, one_way = prng_below(2) == 0.
 *   Bursts           no draws of their own: while bursts touch a link, its
 *                    loss and duplicate chances are 1 - (1 - link) x
 *                    (1 - burst) x ..., in integer ppm; with none active
 *                    they are the link's own, so adding bursts moves no
 *                    draw outside them. A TCP retransmission's loss chance
 *                    is taken at the time it is sent.
 * A packet within one machine, or across a cut link, draws nothing.
 *
 * Random partitions never overlap: each starts a drawn gap after the previous
 * one healed, so at most one is active at a time and a binary search finds it.
 * Scheduled ones ([partition] sections and partition faults) and bursts are
 * few and scanned in full. */
#include "net/model/net.h"
#include "base/xalloc.h"
#include <stdlib.h>
#include <string.h>

#define NS_PER_MS 1000000ULL
#define NS_PER_S 1000000000ULL
#define PPM 1000000u
#define MAX_RTO_NS (60 * NS_PER_S)      /* a retransmission never waits longer */
#define MAX_RETRANSMITS 15              /* Linux's tcp_retries2 */
#define MAX_RANDOM_PARTITIONS 10000     /* like [chaos]'s cap on drawn faults */

struct net_model {
    struct net_conf conf;       /* links owned; partitions not used */
    size_t nmachines;
    struct prng packets;        /* "net" */
    struct net_partition *scheduled, *random, *all;     /* all: in start order */
    size_t nscheduled, nrandom;
    struct net_burst *bursts;
    size_t nbursts;
};

static uint64_t add_sat(uint64_t a, uint64_t b)
{
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static uint64_t between(struct prng *p, uint64_t lo, uint64_t hi)
{
    if (hi <= lo)
        return lo;
    if (hi - lo == UINT64_MAX)
        return prng_next(p);
    return lo + prng_below(p, hi - lo + 1);
}

static bool chance(struct prng *p, uint32_t ppm)
{
    if (ppm == 0)
        return false;
    if (ppm >= PPM)
        return true;
    return prng_below(p, PPM) < ppm;
}

static uint64_t bit(int machine)
{
    return machine >= 0 && machine < NET_MAX_MACHINES ? 1ULL << machine : 0;
}

/* When something that starts at `at` and lasts `duration` ends;
 * UINT64_MAX if never (duration 0). */
static uint64_t ends(uint64_t at, uint64_t duration)
{
    return duration ? add_sat(at, duration) : UINT64_MAX;
}

static uint64_t end_of(const struct net_partition *p)
{
    return ends(p->at_ns, p->duration_ns);
}

static bool active(const struct net_partition *p, uint64_t now)
{
    return p->at_ns <= now && now < end_of(p);
}

static bool burst_active(const struct net_burst *b, uint64_t now)
{
    return b->at_ns <= now && now < ends(b->at_ns, b->duration_ns);
}

static bool separates(const struct net_partition *p, int from, int to)
{
    uint64_t f = bit(from), t = bit(to);
    if ((p->side_a & f) && (p->side_b & t))
        return true;
    return !p->one_way && (p->side_b & f) && (p->side_a & t);
}

/* Random partitions, back to back up to the horizon (see the top); only
 * those starting at or after from_ns are kept. */
static bool draw_partitions(struct net_model *m, uint64_t seed, uint64_t from_ns, uint64_t horizon_ns)
{
    const struct net_conf *c = &m->conf;
    size_t n = m->nmachines;
    if (!c->partition_every_ns || n < 2)
        return true;
    uint64_t everyone = n == 64 ? UINT64_MAX : (1ULL << n) - 1;
    uint64_t max_gap = c->partition_every_ns > UINT64_MAX / 2 ? UINT64_MAX : 2 * c->partition_every_ns;
    struct prng q;
    prng_init(&q, seed, "net/partitions");
    size_t cap = m->nrandom;
    for (uint64_t healed = 0; m->nrandom < MAX_RANDOM_PARTITIONS;) {
        uint64_t at = add_sat(healed, between(&q, 1, max_gap));
        if (at >= horizon_ns)
            break;
        struct net_partition p = { .at_ns = at, .random = true };
        p.side_a = 1 + prng_below(&q, everyone - 1);
        p.side_b = everyone & ~p.side_a;
        p.duration_ns = between(&q, c->partition_for_lo, c->partition_for_hi);
        if (p.duration_ns == 0)         /* 0 would mean "forever" */
            p.duration_ns = 1;
        if (c->partition_one_way)
            p.one_way = prng_below(&q, 2) == 0;
        healed = end_of(&p);
        if (at < from_ns)
            continue;
        GROW(m->random, m->nrandom, cap);
        m->random[m->nrandom++] = p;
    }
    return true;
}

/* Sorts the scheduled partitions by start, stably (file order among
 * equals): insertion sort, as there are few. */
static void sort_by_start(struct net_partition *v, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        struct net_partition p = v[i];
        size_t j = i;
        for (; j > 0 && v[j - 1].at_ns > p.at_ns; j--)
            v[j] = v[j - 1];
        v[j] = p;
    }
}

static struct net_partition *copy_of(const struct net_partition *v, size_t n)
{
    struct net_partition *c = malloc((n ? n : 1) * sizeof *c);
    if (c && n)
        memcpy(c, v, n * sizeof *c);
    return c;
}

/* All partitions in start order, scheduled first among equals. */
static bool merge_all(struct net_model *m)
{
    size_t total = m->nscheduled + m->nrandom, i = 0, j = 0;
    sort_by_start(m->scheduled, m->nscheduled);
    struct net_partition *all = realloc(m->all, (total ? total : 1) * sizeof *all);
    if (!all)
        return false;
    m->all = all;
    for (size_t k = 0; k < total; k++) {
        bool take_scheduled = j == m->nrandom || (i < m->nscheduled && m->scheduled[i].at_ns <= m->random[j].at_ns);
        all[k] = take_scheduled ? m->scheduled[i++] : m->random[j++];
    }
    return true;
}

bool net_model_add_partition(struct net_model *m, const struct net_partition *p)
{
    GROW_ONE(m->scheduled, m->nscheduled);
    m->scheduled[m->nscheduled++] = *p;
    return merge_all(m);
}

bool net_model_add_burst(struct net_model *m, const struct net_burst *b)
{
    GROW_ONE(m->bursts, m->nbursts);
    m->bursts[m->nbursts++] = *b;
    return true;
}

size_t net_burst_count(const struct net_model *m)
{
    return m->nbursts;
}

const struct net_burst *net_burst_get(const struct net_model *m, size_t i)
{
    return i < m->nbursts ? &m->bursts[i] : NULL;
}

struct net_model *net_model_new(const struct net_conf *c, size_t nmachines, uint64_t seed, uint64_t horizon_ns)
{
    if (c->partition_every_ns && nmachines > NET_MAX_MACHINES)
        return NULL;                    /* sides are 64-bit masks */
    struct net_model *m = calloc(1, sizeof *m);
    if (!m)
        return NULL;
    m->conf = *c;
    m->conf.partitions = NULL;
    m->conf.npartitions = 0;
    m->conf.links = malloc((c->nlinks ? c->nlinks : 1) * sizeof *c->links);
    m->nmachines = nmachines;
    prng_init(&m->packets, seed, "net");
    if (!m->conf.links)
        goto fail;
    if (c->nlinks)
        memcpy(m->conf.links, c->links, c->nlinks * sizeof *c->links);
    if (m->conf.dflt.lat_hi < m->conf.dflt.lat_lo)
        m->conf.dflt.lat_hi = m->conf.dflt.lat_lo;
    for (size_t i = 0; i < c->nlinks; i++)
        if (m->conf.links[i].link.lat_hi < m->conf.links[i].link.lat_lo)
            m->conf.links[i].link.lat_hi = m->conf.links[i].link.lat_lo;

    if (!(m->scheduled = copy_of(c->partitions, c->npartitions)))
        goto fail;
    m->nscheduled = c->npartitions;
    if (!draw_partitions(m, seed, 0, horizon_ns) || !merge_all(m))
        goto fail;
    return m;

fail:
    net_model_free(m);
    return NULL;
}

bool net_model_reseed(struct net_model *m, uint64_t seed, uint64_t at_ns, uint64_t horizon_ns)
{
    prng_init(&m->packets, seed, "net");
    uint64_t from = at_ns;
    size_t keep = 0;
    for (; keep < m->nrandom && m->random[keep].at_ns < at_ns; keep++)
        if (end_of(&m->random[keep]) > from)
            from = end_of(&m->random[keep]);
    m->nrandom = keep;
    return draw_partitions(m, seed, from, horizon_ns) && merge_all(m);
}

void net_model_free(struct net_model *m)
{
    if (!m)
        return;
    free(m->conf.links);
    free(m->scheduled);
    free(m->random);
    free(m->all);
    free(m->bursts);
    free(m);
}

size_t net_partition_count(const struct net_model *m)
{
    return m->nscheduled + m->nrandom;
}

const struct net_partition *net_partition_get(const struct net_model *m, size_t i)
{
    return i < net_partition_count(m) ? &m->all[i] : NULL;
}

/* Index of the first random partition starting after now. */
static size_t random_after(const struct net_model *m, uint64_t now)
{
    size_t lo = 0, hi = m->nrandom;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (m->random[mid].at_ns <= now)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

bool net_cut(const struct net_model *m, int from, int to, uint64_t now)
{
    if (from == to)
        return false;
    for (size_t i = 0; i < m->nscheduled; i++)
        if (active(&m->scheduled[i], now) && separates(&m->scheduled[i], from, to))
            return true;
    size_t next = random_after(m, now);
    if (next == 0)
        return false;
    const struct net_partition *p = &m->random[next - 1];      /* the only candidate */
    return active(p, now) && separates(p, from, to);
}

uint64_t net_next_change(const struct net_model *m, uint64_t now)
{
    uint64_t next = UINT64_MAX;
    for (size_t i = 0; i < m->nscheduled; i++) {
        const struct net_partition *p = &m->scheduled[i];
        if (p->at_ns > now && p->at_ns < next)
            next = p->at_ns;
        if (end_of(p) > now && end_of(p) < next)
            next = end_of(p);
    }
    size_t after = random_after(m, now);
    if (after < m->nrandom && m->random[after].at_ns < next)
        next = m->random[after].at_ns;
    if (after > 0 && end_of(&m->random[after - 1]) > now && end_of(&m->random[after - 1]) < next)
        next = end_of(&m->random[after - 1]);
    for (size_t i = 0; i < m->nbursts; i++) {
        uint64_t at = m->bursts[i].at_ns, end = ends(at, m->bursts[i].duration_ns);
        if (at > now && at < next)
            next = at;
        if (end > now && end < next)
            next = end;
    }
    return next;
}

static const struct net_link *link_for(const struct net_model *m, int a, int b)
{
    for (size_t i = 0; i < m->conf.nlinks; i++) {
        const struct net_link_override *o = &m->conf.links[i];
        if ((o->a == a && o->b == b) || (o->a == b && o->b == a))
            return &o->link;
    }
    return &m->conf.dflt;
}

/* The link's loss (or duplication) chance at time t, with the bursts
 * active then on links touching from or to (see the top). */
static uint32_t chance_at(const struct net_model *m, const struct net_link *l, bool dup, int from, int to,
                          uint64_t t)
{
    uint64_t base = dup ? l->dup_ppm : l->loss_ppm;
    uint64_t survive = PPM - (base < PPM ? base : PPM), touch = bit(from) | bit(to);
    bool any = false;
    for (size_t i = 0; i < m->nbursts; i++) {
        const struct net_burst *b = &m->bursts[i];
        if (!burst_active(b, t) || (b->machines && !(b->machines & touch)))
            continue;
        uint64_t ppm = dup ? b->dup_ppm : b->loss_ppm;
        survive = survive * (PPM - (ppm < PPM ? ppm : PPM)) / PPM;
        any = true;
    }
    return any ? (uint32_t)(PPM - survive) : (uint32_t)base;
}

struct net_fate net_udp_fate(struct net_model *m, int from, int to, uint64_t now)
{
    struct net_fate f = { 0 };
    if (from == to) {
        f.copies = 1;
        f.delay[0] = m->conf.loopback_latency_ns;
        return f;
    }
    if (net_cut(m, from, to, now)) {
        f.cut = true;
        return f;
    }
    const struct net_link *l = link_for(m, from, to);
    if (chance(&m->packets, chance_at(m, l, false, from, to, now))) {
        f.lost = true;
        return f;
    }
    f.duplicated = chance(&m->packets, chance_at(m, l, true, from, to, now));
    f.copies = f.duplicated ? 2 : 1;
    for (int i = 0; i < f.copies; i++) {
        f.delay[i] = between(&m->packets, l->lat_lo, l->lat_hi);
        if (chance(&m->packets, l->reorder_ppm)) {
            /* Late enough to land after datagrams sent a little later;
             * the 1ns makes that hold on a zero-latency link too. */
            uint64_t extra = between(&m->packets, l->lat_hi, add_sat(l->lat_hi, l->lat_hi));
            f.delay[i] = add_sat(f.delay[i], add_sat(extra, 1));
            f.reordered = true;
        }
    }
    return f;
}

uint64_t net_tcp_arrival(struct net_model *m, int from, int to, uint64_t now, uint64_t after, bool *lost)
{
    uint64_t deadline = add_sat(now, m->conf.tcp_timeout_ns);
    uint64_t arrival;
    if (lost)
        *lost = false;
    if (from == to) {
        arrival = add_sat(now, m->conf.loopback_latency_ns);
        arrival = arrival > after ? arrival : after;
        return arrival > deadline ? UINT64_MAX : arrival;
    }
    /* Held while the link is cut: it leaves when the partitions heal. */
    uint64_t send = now;
    while (net_cut(m, from, to, send)) {
        send = net_next_change(m, send);
        if (send == UINT64_MAX || send > deadline)
            return UINT64_MAX;
    }
    const struct net_link *l = link_for(m, from, to);
    uint64_t latency = between(&m->packets, l->lat_lo, l->lat_hi);
    uint64_t rto = m->conf.rto_ns ? m->conf.rto_ns : 1;
    for (int retransmits = 0; chance(&m->packets, chance_at(m, l, false, from, to, send)); retransmits++) {
        if (lost)
            *lost = true;
        if (retransmits == MAX_RETRANSMITS)
            return UINT64_MAX;
        send = add_sat(send, rto < MAX_RTO_NS ? rto : MAX_RTO_NS);
        if (send > deadline)
            return UINT64_MAX;
        rto = add_sat(rto, rto);
    }
    arrival = add_sat(send, latency);
    arrival = arrival > after ? arrival : after;
    return arrival > deadline ? UINT64_MAX : arrival;
}
