/* Warm start ([simulation] warm_start): every seed's run up to a point is
 * one fixed start-up's, and its own from there on. */
#ifndef DSIM_WARM_H
#define DSIM_WARM_H
#include <stdbool.h>
#include "world/world.h"

/* The seed the run's streams draw from at its start. */
uint64_t warm_startup_seed(const struct config *c, uint64_t seed);
/* A warm start at a time: whether the loop's turn is at the point now. */
bool warm_due(const struct world *w);
/* A warm start at the first network call: whether t's call, about to be
 * carried out, is it (a socket of the simulated network). */
bool warm_due_at_call(const struct world *w, const struct thread *t);
/* A warm start at a line a machine prints: after each step, whether its
 * stdout or stderr now holds the text. */
void warm_watch_output(struct world *w);
/* At the point: every stream (scheduler, machines' entropy and disks, the
 * network's packets, picks and random partitions) draws from w->seed from
 * here on, and [chaos] begins (its faults drawn for earlier times are
 * dropped). */
void warm_point(struct world *w);
/* A lock a process holds through an fd at the point (its fdinfo): flock's,
 * a POSIX record lock or an open file description's, read or write, over
 * [start, end] (end -1: to the end of the file). A copy takes it again on
 * the file it opens again (each seed's disk has its own). */
enum warm_lock_kind { WARM_FLOCK, WARM_POSIX, WARM_OFD };
struct warm_lock { enum warm_lock_kind kind; bool write; long long start, end; };
#define WARM_LOCKS 8
/* Whether fd of process pid is one a copy of it can open again for itself
 * (a regular file of the machine's disk, read or written, or a directory
 * of it not yet read; locked by up to
 * WARM_LOCKS advisory locks): its path as the machine names it, its open
 * flags and offset, its locks (locks may be NULL if none are wanted). */
bool warm_reopenable(pid_t pid, int fd, char *path, size_t len, int *flags, long long *pos, struct warm_lock *locks,
                     int *nlocks);
/* A shared mapping of a regular file of the machine's disk at the point:
 * a fork would share the template's file, so each copy maps its own
 * disk's file again over it (snapproc.c), as the process had it. */
struct warm_map {
    uint64_t start, end, offset;
    int prot;
    bool maywrite;      /* its file open for writing (mprotect may make it writable) */
    char path[4096];    /* as the machine names it */
};
/* pid's shared mappings of its disk's files into *maps (realloc'd, *n of
 * them; maps NULL: none wanted). NULL, or why a copy cannot have one (a
 * writable shared mapping of something else, but its clock page: shared
 * memory, /dev/shm, a deleted file), in buf. Reads /proc. */
const char *warm_shared_maps(pid_t pid, uint64_t clock_page, struct warm_map **maps, int *n, char *buf, size_t len);
/* Whether a snapshot could copy every machine here by forking: init and
 * one process each (its threads made again; none waiting in poll, select,
 * a splice or a lock), no fd past 2 but regular files (warm_reopenable)
 * and those a copy makes anew (snapfds.h), no writable shared mapping but
 * of its disk's files (warm_shared_maps), no pending signal; else false and why ("machine NAME: ..."). Reads /proc. */
bool warm_copyable(const struct world *w, char *why, size_t len);
#endif
