/* The network model: what the network between machines does to each packet.
 * Latency, loss, duplication, reordering and partitions, all drawn from the
 * run's "net" PRNG stream. Pure logic: no ptrace, no sockets, no tracee;
 * machines are indices 0..n-1 in declaration order. Unit-tested alone
 * (tests/unit/test_net.c). */
#ifndef DSIM_NET_H
#define DSIM_NET_H
#include "base/network.h"
#include "base/prng.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct net_model;

/* A model for nmachines machines. Random partitions are drawn now, up to
 * horizon_ns, from their own stream, so that they do not depend on traffic. */
struct net_model *net_model_new(const struct net_conf *c, size_t nmachines, uint64_t seed, uint64_t horizon_ns);
void net_model_free(struct net_model *m);
/* A warm start (supervisor/warm.c): from at_ns on, packets draw from seed,
 * and so do random partitions, the first starting once the last of the
 * earlier seed's that started before at_ns has healed. */
bool net_model_reseed(struct net_model *m, uint64_t seed, uint64_t at_ns, uint64_t horizon_ns);

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
