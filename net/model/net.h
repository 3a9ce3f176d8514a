/* The network model: what the network between machines does to each packet.
 * Latency, loss, duplication, reordering and partitions, all drawn from the
 * run's "net" PRNG stream. Pure logic: no ptrace, no sockets, no tracee;
 * machines are indices 0..n-1 in declaration order. Unit-tested alone
 * (tests/unit/test_net.c). */
#ifndef DSIM_NET_H
#define DSIM_NET_H
#include "base/prng.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define NET_MAX_MACHINES 64     /* partition sides are bitmasks */

/* How one direction of a link treats packets. */
struct net_link {
    uint64_t lat_lo, lat_hi;    /* one-way latency, uniform in [lo, hi] ns */
    uint32_t loss_ppm;          /* UDP: dropped; TCP: a retransmission delay */
    uint32_t dup_ppm;           /* UDP only */
    uint32_t reorder_ppm;       /* UDP only: may overtake earlier datagrams */
};

/* [link A B]: overrides [network] for traffic between A and B (both ways). */
struct net_link_override {
    int a, b;                   /* machine indices */
    struct net_link link;
    int line;
};

/* A partition: traffic from side_a to side_b (and back, unless one_way) is
 * cut from at_ns for duration_ns (0: until the run ends). */
struct net_partition {
    uint64_t at_ns, duration_ns;
    uint64_t side_a, side_b;    /* bitmasks of machine indices */
    bool one_way;
    bool random;                /* drawn from the seed, not configured */
    int line;                   /* of its [partition] section; 0 otherwise */
    const char *name;           /* the [fault]/[chaos] fault that made it (not owned), or NULL */
};

/* A loss or duplication burst (a [fault]/[chaos] fault): from at_ns for
 * duration_ns (0: until the run ends), a packet on a link touching a
 * machine of `machines` (any link when 0) is lost, or duplicated, with an
 * extra chance of loss_ppm or dup_ppm on top of its link's. As on a lossy
 * link, a lost TCP segment is retransmitted, never lost; duplication is
 * UDP only. */
struct net_burst {
    uint64_t at_ns, duration_ns;
    uint64_t machines;          /* bitmask of machine indices */
    uint32_t loss_ppm, dup_ppm;
    const char *name;           /* the fault that made it (not owned) */
};

struct net_conf {
    struct net_link dflt;       /* [network]; default: latency 1ms..1ms, no faults */
    struct net_link_override *links;
    size_t nlinks;
    struct net_partition *partitions;   /* scheduled, from [partition] sections */
    size_t npartitions;
    /* Random partitions: mean interval between them (0: none), how long
     * each lasts, and whether they may be one-way. */
    uint64_t partition_every_ns;
    uint64_t partition_for_lo, partition_for_hi;
    bool partition_one_way;
    uint64_t loopback_latency_ns;   /* within one machine (default 0) */
    uint64_t rto_ns;                /* TCP's first retransmission timeout (default 200ms) */
    uint64_t tcp_timeout_ns;        /* a stream stalled this long is reset, ETIMEDOUT (default 60s) */
};

/* The defaults above. */
void net_conf_init(struct net_conf *c);
void net_conf_free(struct net_conf *c);     /* frees links and partitions */

struct net_model;

/* A model for nmachines machines. Random partitions are drawn now, up to
 * horizon_ns, from their own stream, so that they do not depend on traffic. */
struct net_model *net_model_new(const struct net_conf *c, size_t nmachines, uint64_t seed, uint64_t horizon_ns);
void net_model_free(struct net_model *m);

/* Faults of the run's plan, added before any packet is sent. false when
 * out of memory. */
bool net_model_add_partition(struct net_model *m, const struct net_partition *p);
bool net_model_add_burst(struct net_model *m, const struct net_burst *b);

/* Whether traffic from machine `from` to machine `to` is cut at `now`.
 * A machine never cuts itself off. */
bool net_cut(const struct net_model *m, int from, int to, uint64_t now);

/* The next time after `now` at which any partition or burst starts or
 * ends, or UINT64_MAX. The supervisor wakes then to retry stalled traffic
 * (and to trace the change). */
uint64_t net_next_change(const struct net_model *m, uint64_t now);

/* Partitions (scheduled and random), in start order, for traces/reports. */
size_t net_partition_count(const struct net_model *m);
const struct net_partition *net_partition_get(const struct net_model *m, size_t i);
/* Bursts, in the order they were added. */
size_t net_burst_count(const struct net_model *m);
const struct net_burst *net_burst_get(const struct net_model *m, size_t i);

/* What happens to one UDP datagram sent from -> to at `now`. copies is 0
 * (dropped: loss or a cut link), 1, or 2 (duplicated); loss and
 * duplication count the bursts active at `now`; delay[i] is each
 * copy's one-way delay. A reordered copy gets extra delay, so it may land
 * after datagrams sent later. */
struct net_fate {
    int copies;
    uint64_t delay[2];
    bool lost, cut, duplicated, reordered;   /* for the trace */
};
struct net_fate net_udp_fate(struct net_model *m, int from, int to, uint64_t now);

/* The arrival time of a TCP segment sent from -> to at `now`, given the
 * previous segment's arrival in that direction (`after`: a stream stays in
 * order). Loss adds retransmission delay (rto, doubling; each try meets
 * the bursts active when it is sent); a cut link holds
 * the segment until the partition heals, then it goes through. Sets *lost
 * if retransmissions were drawn. Returns UINT64_MAX if it would not arrive
 * before now + tcp_timeout_ns (the connection then times out). */
uint64_t net_tcp_arrival(struct net_model *m, int from, int to, uint64_t now, uint64_t after, bool *lost);
#endif
