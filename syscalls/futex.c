/* Futexes, emulated in the supervisor: a waiter never sleeps in the kernel,
 * and which waiters a wake picks is drawn from the scheduling stream. */
#include "syscalls/sys.h"
#include "world/tracer.h"
#include <limits.h>
#include <linux/futex.h>
#include <stdio.h>
#include <stdlib.h>

struct fkey { uint64_t space, off; bool shared; };

/* The kernel keys a futex in a shared mapping (MAP_SHARED memory, a file,
 * POSIX shm) by the backing inode and offset, so processes with their own
 * address spaces meet on it; anything else by address space and address.
 * Only calls without FUTEX_PRIVATE_FLAG pay for the look-up in maps. */
static bool is_tid_word(const struct world *w, const struct thread *t, uint64_t addr)
{
    if (t->ctid_addr == addr) return true;
    for (size_t i = 0; i < w->nthreads; i++)
        if (w->threads[i]->proc->mm == t->proc->mm && w->threads[i]->ctid_addr == addr) return true;
    return false;
}

/* The highest user address + 1 (x86-64, 4-level paging): the kernel's
 * access_ok() refuses anything above with EFAULT, even for private keys. */
#define USER_END 0x7ffffffff000ULL

/* The key of the futex at addr, as get_futex_key() makes it: 0, -EINVAL
 * (misaligned) or -EFAULT (a kernel address; for a shared key, a page that
 * is not mapped, or not readable, or not writable when `write` or when it
 * is anonymous). */
static int key_at(const struct world *w, struct thread *t, uint64_t addr, bool private, bool write,
                  struct fkey *k)
{
    *k = (struct fkey){ (uint64_t)t->proc->mm, addr, false };
    if (addr & 3) return -EINVAL;
    if (addr >= USER_END - 4) return -EFAULT;
    /* A thread's tid word (pthread_join waits on it without the private
     * flag) lives in its stack's private mapping: no need to look. */
    if (private || is_tid_word(w, t, addr)) return 0;
    char path[64], line[512];
    snprintf(path, sizeof path, "/proc/%d/maps", t->tid);
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    int r = -EFAULT;
    while (fgets(line, sizeof line, f)) {
        unsigned long lo, hi, off, dmaj, dmin, ino;
        char perms[8];
        if (sscanf(line, "%lx-%lx %7s %lx %lx:%lx %lu", &lo, &hi, perms, &off, &dmaj, &dmin, &ino) != 7) continue;
        if (addr < lo || addr >= hi) continue;
        /* A read-only anonymous page never changes: the kernel refuses
         * to key on it. */
        if (perms[0] != 'r' || ((write || !ino) && perms[1] != 'w')) break;
        r = 0;
        if (perms[3] == 's' && ino)
            *k = (struct fkey){ ino ^ (dmaj << 48) ^ (dmin << 40), off + (addr - lo), true };
        break;
    }
    fclose(f);
    return r;
}

static struct fkey key_of(const struct world *w, struct thread *t, uint64_t addr, bool private)
{
    struct fkey k;
    key_at(w, t, addr, private, false, &k);
    return k;
}

/* The index of t's futex_waitv key k, or -1. */
static int waitv_index(const struct thread *t, struct fkey k)
{
    for (int i = 0; i < t->nfutexv; i++) {
        const uint64_t *v = &t->futexv[3 * i];
        if (v[0] == k.space && v[1] == k.off && (bool)v[2] == k.shared) return i;
    }
    return -1;
}

static bool waiting_on(const struct thread *t, struct fkey k, uint32_t bitset)
{
    if (t->state != TS_BLOCKED || t->woken || !t->futex_space || t->futex_pi) return false;
    if (t->nfutexv) return waitv_index(t, k) >= 0;
    return t->futex_space == k.space && t->futex_key == k.off && t->futex_shared == k.shared &&
           (t->futex_bitset & bitset);
}

/* Wakes up to n waiters on k; returns how many. */
static int wake_key(struct world *w, struct fkey k, int n, uint32_t bitset)
{
    struct thread *cand[256];
    int nc = 0, woken = 0;
    for (size_t i = 0; i < w->nthreads && nc < 256; i++)
        if (waiting_on(w->threads[i], k, bitset)) cand[nc++] = w->threads[i];
    while (woken < n && nc > 0) {
        int c = (int)prng_below(&w->sched, (uint64_t)nc);
        cand[c]->woken = true;
        if (cand[c]->nfutexv) cand[c]->futexv_hit = waitv_index(cand[c], k);
        cand[c] = cand[--nc];
        woken++;
    }
    return woken;
}

/* A thread's CLONE_CHILD_CLEARTID word: the kernel wakes it as shared, which
 * for private memory is the same as (address space, address). */
int futex_wake_tid(struct world *w, struct thread *exited, int n)
{
    return wake_key(w, key_of(w, exited, exited->ctid_addr, false), n, ~0u);
}

/* Moves up to n waiters from k to k2, in thread order. */
static int futex_requeue(struct world *w, struct fkey k, struct fkey k2, int n)
{
    int moved = 0;
    for (size_t i = 0; i < w->nthreads && moved < n; i++) {
        struct thread *t = w->threads[i];
        if (t->nfutexv || !waiting_on(t, k, ~0u)) continue;    /* the kernel requeues no waitv waiter */
        t->futex_key = k2.off;
        t->futex_space = k2.space;
        t->futex_shared = k2.shared;
        moved++;
    }
    return moved;
}

static bool wake_op_cmp(unsigned cmp, int old, int arg)
{
    switch (cmp) {
    case FUTEX_OP_CMP_EQ: return old == arg;
    case FUTEX_OP_CMP_NE: return old != arg;
    case FUTEX_OP_CMP_LT: return old < arg;
    case FUTEX_OP_CMP_LE: return old <= arg;
    case FUTEX_OP_CMP_GT: return old > arg;
    default: return old >= arg;
    }
}

static long wake_op(struct world *w, struct thread *t, bool private, uint64_t a1, int n1, uint64_t a2,
                    int n2, uint32_t encoded)
{
    struct fkey k1, k2;
    int e = key_at(w, t, a1, private, false, &k1);
    if (!e) e = key_at(w, t, a2, private, true, &k2);
    if (e) return e;
    unsigned op = (encoded >> 28) & 7, cmp = (encoded >> 24) & 15;
    /* 12-bit signed fields, sign-extended as the kernel does. */
    int oparg = (int32_t)(encoded << 8) >> 20, cmparg = (int32_t)(encoded << 20) >> 20;
    /* A shift out of range is masked (the kernel logs it and goes on). */
    if (encoded & ((uint32_t)FUTEX_OP_OPARG_SHIFT << 28)) oparg = (int)(1u << (oparg & 31));
    int old, val;
    if (op > FUTEX_OP_XOR) return -ENOSYS;
    if (mem_read(t->tid, a2, &old, sizeof old)) return -EFAULT;
    switch (op) {
    case FUTEX_OP_SET: val = oparg; break;
    case FUTEX_OP_ADD: val = (int)((unsigned)old + (unsigned)oparg); break;
    case FUTEX_OP_OR: val = old | oparg; break;
    case FUTEX_OP_ANDN: val = old & ~oparg; break;
    default: val = old ^ oparg; break;
    }
    /* Nothing else runs while the supervisor works: read-modify-write is atomic. */
    if (mem_write(t->tid, a2, &val, sizeof val)) return -EFAULT;
    /* The operation stands even when the comparison is unknown. */
    if (cmp > FUTEX_OP_CMP_GE) return -ENOSYS;
    long woken = wake_key(w, k1, n1, ~0u);
    if (wake_op_cmp(cmp, old, cmparg)) woken += wake_key(w, k2, n2, ~0u);
    return woken;
}

/* ---- PI futexes: the word holds its owner's tid (as the machine numbers
 * it), FUTEX_WAITERS and FUTEX_OWNER_DIED; the kernel's part, the owner
 * tracking and the hand-over, is dsim's. Waiters are handed the lock in
 * the order they came (Linux: by priority, then in order; the machine's
 * threads all have one priority to the kernel here). ---- */

static bool pi_waiting_on(const struct thread *t, struct fkey k)
{
    return t->state == TS_BLOCKED && !t->woken && t->futex_pi && t->futex_space == k.space &&
           t->futex_key == k.off && t->futex_shared == k.shared;
}

/* The first waiter for k, and whether another waits after it. */
static struct thread *pi_next_waiter(struct world *w, struct fkey k, bool *more)
{
    struct thread *first = NULL;
    *more = false;
    for (size_t i = 0; i < w->nthreads; i++) {
        struct thread *o = w->threads[i];
        if (!pi_waiting_on(o, k)) continue;
        if (first) *more = true;
        if (!first || o->futex_pi_since < first->futex_pi_since) first = o;
    }
    return first;
}

static enum sys_action futex_lock_pi(struct world *w, struct thread *t, uint64_t addr, bool private, bool trylock,
                                     uint64_t deadline)
{
    struct fkey k;
    int e = key_at(w, t, addr, private, true, &k);
    if (e) return emulate(t, e);
    uint32_t cur;
    if (mem_read(t->tid, addr, &cur, sizeof cur)) return emulate(t, -EFAULT);
    pid_t owner = (pid_t)(cur & FUTEX_TID_MASK);
    if (!owner) {       /* free: the caller takes it, keeping OWNER_DIED */
        uint32_t now = (cur & FUTEX_OWNER_DIED) | (uint32_t)t->vtid;
        if (mem_write(t->tid, addr, &now, sizeof now)) return emulate(t, -EFAULT);
        return emulate(t, 0);
    }
    if (owner == t->vtid) return emulate(t, -EDEADLK);
    struct thread *o = world_thread_by_vtid(w, t->proc->m, owner);
    if (!o || o->state == TS_DEAD) return emulate(t, -ESRCH);
    if (trylock) return emulate(t, -EAGAIN);
    if (deadline <= w->now) return emulate(t, -ETIMEDOUT);
    uint32_t marked = cur | FUTEX_WAITERS;
    if (marked != cur && mem_write(t->tid, addr, &marked, sizeof marked)) return emulate(t, -EFAULT);
    t->futex_key = k.off;
    t->futex_space = k.space;
    t->futex_shared = k.shared;
    t->futex_pi = true;
    t->futex_pi_since = w->steps;
    return block(t, deadline, NULL);
}

static enum sys_action futex_unlock_pi(struct world *w, struct thread *t, uint64_t addr, bool private)
{
    struct fkey k;
    int e = key_at(w, t, addr, private, true, &k);
    if (e) return emulate(t, e);
    uint32_t cur;
    if (mem_read(t->tid, addr, &cur, sizeof cur)) return emulate(t, -EFAULT);
    if ((pid_t)(cur & FUTEX_TID_MASK) != t->vtid) return emulate(t, -EPERM);
    bool more;
    struct thread *next = pi_next_waiter(w, k, &more);
    /* Handed on, the word names the new owner with FUTEX_WAITERS (its
     * unlock then comes here); else it is free. */
    uint32_t now = next ? FUTEX_WAITERS | (uint32_t)next->vtid : 0;
    if (mem_write(t->tid, addr, &now, sizeof now)) return emulate(t, -EFAULT);
    if (next) next->woken = true;
    return emulate(t, 0);
}

/* Commands that take a timeout (the others read the argument as a count). */
static bool has_timeout(int cmd)
{
    return cmd == FUTEX_WAIT || cmd == FUTEX_WAIT_BITSET || cmd == FUTEX_LOCK_PI || cmd == FUTEX_LOCK_PI2 ||
           cmd == FUTEX_WAIT_REQUEUE_PI;
}

/* The checks Linux makes before a command runs, in its order: the timeout
 * (EFAULT, EINVAL), then FUTEX_CLOCK_REALTIME with a command that has no
 * absolute timeout (ENOSYS). 0 or -errno; *ns the timeout read. */
static int futex_precheck(struct thread *t, int op, uint64_t *ns, bool *has_ns)
{
    int cmd = op & FUTEX_CMD_MASK;
    *has_ns = false;
    if (ARG3(t) && has_timeout(cmd)) {
        int e = read_timespec(t, ARG3(t), ns);
        if (e) return e;
        *has_ns = true;
    }
    if ((op & FUTEX_CLOCK_REALTIME) && cmd != FUTEX_WAIT_BITSET && cmd != FUTEX_WAIT_REQUEUE_PI &&
        cmd != FUTEX_LOCK_PI2)
        return -ENOSYS;
    return 0;
}

/* A wait's end: woken (0) or timed out; else it goes on waiting. */
static enum sys_action futex_retry(struct thread *t)
{
    if (t->woken) { t->futex_space = 0; t->futex_pi = false; return emulate(t, 0); }
    if (t->timed_out) { t->futex_space = 0; t->futex_pi = false; return emulate(t, -ETIMEDOUT); }
    return SYS_BLOCK;
}

/* Waits on the word at addr while it holds val, for a wake matching bitset,
 * until deadline: the key's errors, then EAGAIN, then ETIMEDOUT. */
static enum sys_action futex_wait_on(struct world *w, struct thread *t, uint64_t addr, bool private, uint32_t val,
                                     uint32_t bitset, uint64_t deadline)
{
    struct fkey k;
    int e = key_at(w, t, addr, private, false, &k);
    if (e) return emulate(t, e);
    uint32_t cur;
    if (mem_read(t->tid, addr, &cur, sizeof cur)) return emulate(t, -EFAULT);
    if (cur != val) return emulate(t, -EAGAIN);
    if (deadline <= w->now) return emulate(t, -ETIMEDOUT);
    t->futex_key = k.off;
    t->futex_space = k.space;
    t->futex_shared = k.shared;
    t->futex_bitset = bitset;
    return block(t, deadline, NULL);
}

enum sys_action sys_futex(struct world *w, struct thread *t)
{
    uint64_t addr = ARG0(t), addr2 = ARG4(t);
    int op = (int)ARG1(t), cmd = op & FUTEX_CMD_MASK;
    uint32_t val = (uint32_t)ARG2(t), val3 = (uint32_t)ARG5(t);
    bool private = op & FUTEX_PRIVATE_FLAG;
    bool realtime = op & FUTEX_CLOCK_REALTIME;

    if (t->retry) return futex_retry(t);
    uint64_t ns;
    bool has_ns;
    int e = futex_precheck(t, op, &ns, &has_ns);
    if (e) return emulate(t, e);
    struct fkey k, k2;
    switch (cmd) {
    case FUTEX_WAIT:
    case FUTEX_WAIT_BITSET: {
        uint32_t bitset = cmd == FUTEX_WAIT ? ~0u : val3;
        if (!bitset) return emulate(t, -EINVAL);
        uint64_t deadline = UINT64_MAX;
        if (has_ns) {
            if (cmd == FUTEX_WAIT) deadline = w->now + ns;      /* relative */
            else deadline = deadline_for_abs(w, t, realtime ? 0 : 1, ns);
        }
        return futex_wait_on(w, t, addr, private, val, bitset, deadline);
    }
    case FUTEX_WAKE:
    case FUTEX_WAKE_BITSET: {
        uint32_t bitset = cmd == FUTEX_WAKE ? ~0u : val3;
        if (!bitset) return emulate(t, -EINVAL);
        if ((e = key_at(w, t, addr, private, false, &k))) return emulate(t, e);
        return emulate(t, wake_key(w, k, (int)(val > INT_MAX ? INT_MAX : val), bitset));
    }
    case FUTEX_CMP_REQUEUE:
    case FUTEX_REQUEUE: {
        int nwake = (int)val, nreq = (int)ARG3(t);
        if (nwake < 0 || nreq < 0) return emulate(t, -EINVAL);
        if ((e = key_at(w, t, addr, private, false, &k)) || (e = key_at(w, t, addr2, private, false, &k2)))
            return emulate(t, e);
        if (cmd == FUTEX_CMP_REQUEUE) {
            uint32_t cur;
            if (mem_read(t->tid, addr, &cur, sizeof cur)) return emulate(t, -EFAULT);
            if (cur != val3) return emulate(t, -EAGAIN);
        }
        int woken = wake_key(w, k, nwake, ~0u);
        return emulate(t, woken + futex_requeue(w, k, k2, nreq));
    }
    case FUTEX_WAKE_OP:
        return emulate(t, wake_op(w, t, private, addr, (int)val, addr2, (int)ARG3(t), val3));
    case FUTEX_LOCK_PI:
    case FUTEX_LOCK_PI2:
    case FUTEX_TRYLOCK_PI: {
        /* LOCK_PI's timeout is absolute on CLOCK_REALTIME; LOCK_PI2's on
         * CLOCK_MONOTONIC unless FUTEX_CLOCK_REALTIME. */
        bool rt = cmd == FUTEX_LOCK_PI || realtime;
        uint64_t deadline = has_ns ? deadline_for_abs(w, t, rt ? 0 : 1, ns) : UINT64_MAX;
        return futex_lock_pi(w, t, addr, private, cmd == FUTEX_TRYLOCK_PI, deadline);
    }
    case FUTEX_UNLOCK_PI:
        return futex_unlock_pi(w, t, addr, private);
    case FUTEX_WAIT_REQUEUE_PI: case FUTEX_CMP_REQUEUE_PI:
        /* Condition variables on PI mutexes: not yet. */
        return SYS_FENCE;
    default:
        return emulate(t, -ENOSYS);     /* FUTEX_FD (gone since 2.6.26) and unknown commands */
    }
}

/* ---- futex_waitv: one wait on up to 128 futexes ---- */

#define WAITV_MAX 128
#define FUTEX2_SIZE_U32 0x02
#define FUTEX2_SIZE_MASK 0x03
#define FUTEX2_PRIVATE FUTEX_PRIVATE_FLAG

struct waitv_entry { uint64_t val, uaddr; uint32_t flags, reserved; };

/* Linux's checks, in its order: flags, count, clock, timeout, then each
 * entry (EFAULT, EINVAL), each key, each value (EAGAIN). */
static int waitv_setup(struct world *w, struct thread *t, uint64_t *deadline)
{
    unsigned n = (unsigned)ARG1(t);
    if (ARG2(t)) return -EINVAL;
    if (!n || n > WAITV_MAX || !ARG0(t)) return -EINVAL;
    *deadline = UINT64_MAX;
    if (ARG3(t)) {
        int clk = (int)ARG4(t);
        uint64_t ns;
        if (clk != CLOCK_REALTIME && clk != CLOCK_MONOTONIC) return -EINVAL;
        int e = read_timespec(t, ARG3(t), &ns);
        if (e) return e;
        *deadline = deadline_for_abs(w, t, clk, ns);
    }
    struct waitv_entry v[WAITV_MAX];
    if (mem_read(t->tid, ARG0(t), v, n * sizeof *v)) return -EFAULT;
    for (unsigned i = 0; i < n; i++)
        if ((v[i].flags & ~(FUTEX2_SIZE_MASK | FUTEX2_PRIVATE)) || v[i].reserved ||
            (v[i].flags & FUTEX2_SIZE_MASK) != FUTEX2_SIZE_U32)
            return -EINVAL;
    uint64_t *keys = calloc(3 * n, sizeof *keys);
    if (!keys) return -ENOMEM;
    for (unsigned i = 0; i < n; i++) {
        struct fkey k;
        int e = key_at(w, t, v[i].uaddr, v[i].flags & FUTEX2_PRIVATE, false, &k);
        if (e) { free(keys); return e; }
        keys[3 * i] = k.space, keys[3 * i + 1] = k.off, keys[3 * i + 2] = k.shared;
    }
    for (unsigned i = 0; i < n; i++) {
        uint32_t cur;
        if (mem_read(t->tid, v[i].uaddr, &cur, sizeof cur)) { free(keys); return -EFAULT; }
        if (cur != (uint32_t)v[i].val) { free(keys); return -EAGAIN; }
    }
    t->futexv = keys;
    t->nfutexv = (int)n;
    return 0;
}

enum sys_action sys_futex_waitv(struct world *w, struct thread *t)
{
    if (t->retry) {
        if (t->woken) return emulate(t, t->futexv_hit);
        if (t->timed_out) return emulate(t, -ETIMEDOUT);
        return SYS_BLOCK;
    }
    uint64_t deadline;
    int e = waitv_setup(w, t, &deadline);
    if (e) return emulate(t, e);
    if (deadline <= w->now) return emulate(t, -ETIMEDOUT);
    t->futex_space = 1;     /* waiting; the keys are in futexv */
    t->futexv_hit = -1;
    return block(t, deadline, NULL);
}

/* ---- Linux 6.7's futex_wait, futex_wake and futex_requeue: the same
 * waits and wakes, with futex2 flags (32-bit words only) ---- */

static bool futex2_flags_ok(uint64_t flags)
{
    return !(flags & ~(uint64_t)(FUTEX2_SIZE_MASK | FUTEX2_PRIVATE)) && (flags & FUTEX2_SIZE_MASK) == FUTEX2_SIZE_U32;
}

/* futex_wait(uaddr, val, mask, flags, timeout, clockid): the timeout is
 * absolute on clockid (REALTIME or MONOTONIC), checked only when given. */
enum sys_action sys_futex2_wait(struct world *w, struct thread *t)
{
    if (t->retry) return futex_retry(t);
    uint64_t val = ARG1(t), mask = ARG2(t), flags = ARG3(t), deadline = UINT64_MAX;
    if (!futex2_flags_ok(flags) || val > UINT32_MAX || mask > UINT32_MAX) return emulate(t, -EINVAL);
    if (ARG4(t)) {
        int clk = (int)ARG5(t);
        uint64_t ns;
        if (clk != CLOCK_REALTIME && clk != CLOCK_MONOTONIC) return emulate(t, -EINVAL);
        int e = read_timespec(t, ARG4(t), &ns);
        if (e) return emulate(t, e);
        deadline = deadline_for_abs(w, t, clk, ns);
    }
    return futex_wait_on(w, t, ARG0(t), flags & FUTEX2_PRIVATE, (uint32_t)val, (uint32_t)mask, deadline);
}

/* futex_wake(uaddr, mask, nr, flags): nr 0 wakes none (a negative nr, one). */
enum sys_action sys_futex2_wake(struct world *w, struct thread *t)
{
    uint64_t mask = ARG1(t), flags = ARG3(t);
    int nr = (int)ARG2(t);
    if (!futex2_flags_ok(flags) || mask > UINT32_MAX || !mask) return emulate(t, -EINVAL);
    struct fkey k;
    int e = key_at(w, t, ARG0(t), flags & FUTEX2_PRIVATE, false, &k);
    if (e) return emulate(t, e);
    return emulate(t, wake_key(w, k, nr < 0 ? 1 : nr, (uint32_t)mask));
}

/* futex_requeue(waiters[2], flags, nr_wake, nr_requeue): waiters[0]'s word
 * must hold its val (EAGAIN); wakes then moves waiters to waiters[1]. */
enum sys_action sys_futex2_requeue(struct world *w, struct thread *t)
{
    struct waitv_entry v[2];
    int nr_wake = (int)ARG2(t), nr_requeue = (int)ARG3(t);
    if (ARG1(t) || !ARG0(t)) return emulate(t, -EINVAL);
    if (mem_read(t->tid, ARG0(t), v, sizeof v)) return emulate(t, -EFAULT);
    for (int i = 0; i < 2; i++)
        if (!futex2_flags_ok(v[i].flags) || v[i].reserved || v[i].val > UINT32_MAX) return emulate(t, -EINVAL);
    if (nr_wake < 0 || nr_requeue < 0) return emulate(t, -EINVAL);
    struct fkey k, k2;
    int e = key_at(w, t, v[0].uaddr, v[0].flags & FUTEX2_PRIVATE, false, &k);
    if (!e) e = key_at(w, t, v[1].uaddr, v[1].flags & FUTEX2_PRIVATE, false, &k2);
    if (e) return emulate(t, e);
    uint32_t cur;
    if (mem_read(t->tid, v[0].uaddr, &cur, sizeof cur)) return emulate(t, -EFAULT);
    if (cur != (uint32_t)v[0].val) return emulate(t, -EAGAIN);
    int woken = wake_key(w, k, nr_wake, ~0u);
    return emulate(t, woken + futex_requeue(w, k, k2, nr_requeue));
}
