/* What a config says of the network between machines: links, partitions,
 * bursts and timeouts ([network], [link A B], [partition], and the faults
 * that become partitions or bursts). Plain data, read by the network model
 * (net/model/) and made by the config reader (base/netconf.c). */
#ifndef DSIM_NETWORK_H
#define DSIM_NETWORK_H
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
#endif
