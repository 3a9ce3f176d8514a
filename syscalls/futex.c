/* Futexes, emulated in the supervisor: a waiter never sleeps in the kernel,
 * and which waiters a wake picks is drawn from the scheduling stream. */
#include "syscalls/sys.h"
#include "supervisor/tracer.h"
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

static struct fkey key_of(const struct world *w, struct thread *t, uint64_t addr, bool private)
{
    struct fkey k = { (uint64_t)t->proc->mm, addr, false };
    /* A thread's tid word (pthread_join waits on it without the private
     * flag) lives in its stack's private mapping: no need to look. */
    if (private || is_tid_word(w, t, addr)) return k;
    char path[64], line[512];
    snprintf(path, sizeof path, "/proc/%d/maps", t->tid);
    FILE *f = fopen(path, "r");
    if (!f) return k;
    while (fgets(line, sizeof line, f)) {
        unsigned long lo, hi, off, dmaj, dmin, ino;
        char perms[8];
        if (sscanf(line, "%lx-%lx %7s %lx %lx:%lx %lu", &lo, &hi, perms, &off, &dmaj, &dmin, &ino) != 7) continue;
        if (addr < lo || addr >= hi) continue;
        if (perms[3] == 's' && ino)
            k = (struct fkey){ ino ^ (dmaj << 48) ^ (dmin << 40), off + (addr - lo), true };
        break;
    }
    fclose(f);
    return k;
}

static bool waiting_on(const struct thread *t, struct fkey k, uint32_t bitset)
{
    return t->state == TS_BLOCKED && !t->woken && t->futex_space && t->futex_space == k.space &&
           t->futex_key == k.off && t->futex_shared == k.shared && (t->futex_bitset & bitset);
}

/* Wakes up to n waiters on k; returns how many. */
static int wake_key(struct world *w, struct fkey k, int n, uint32_t bitset)
{
    struct thread *cand[256];
    int nc = 0, woken = 0;
    for (size_t i = 0; i < w->nthreads && nc < 256; i++)
        if (waiting_on(w->threads[i], k, bitset)) cand[nc++] = w->threads[i];
    while (woken < n && nc > 0) {
        int k = (int)prng_below(&w->sched, (uint64_t)nc);
        cand[k]->woken = true;
        cand[k] = cand[--nc];
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
        if (!waiting_on(t, k, ~0u)) continue;
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
    unsigned op = (encoded >> 28) & 7, cmp = (encoded >> 24) & 15;
    /* 12-bit signed fields, sign-extended as the kernel does. */
    int oparg = (int32_t)(encoded << 8) >> 20, cmparg = (int32_t)(encoded << 20) >> 20;
    if (encoded & ((uint32_t)FUTEX_OP_OPARG_SHIFT << 28)) {
        if (oparg < 0 || oparg > 31) return -EINVAL;
        oparg = (int)(1u << oparg);
    }
    if (cmp > FUTEX_OP_CMP_GE) return -ENOSYS;
    int old, val;
    if (mem_read(t->tid, a2, &old, sizeof old)) return -EFAULT;
    switch (op) {
    case FUTEX_OP_SET: val = oparg; break;
    case FUTEX_OP_ADD: val = (int)((unsigned)old + (unsigned)oparg); break;
    case FUTEX_OP_OR: val = old | oparg; break;
    case FUTEX_OP_ANDN: val = old & ~oparg; break;
    case FUTEX_OP_XOR: val = old ^ oparg; break;
    default: return -ENOSYS;
    }
    /* Nothing else runs while the supervisor works: read-modify-write is atomic. */
    if (mem_write(t->tid, a2, &val, sizeof val)) return -EFAULT;
    long woken = wake_key(w, key_of(w, t, a1, private), n1, ~0u);
    if (wake_op_cmp(cmp, old, cmparg)) woken += wake_key(w, key_of(w, t, a2, private), n2, ~0u);
    return woken;
}

enum sys_action sys_futex(struct world *w, struct thread *t)
{
    uint64_t addr = ARG0(t), addr2 = ARG4(t);
    int op = (int)ARG1(t), cmd = op & FUTEX_CMD_MASK;
    uint32_t val = (uint32_t)ARG2(t), val3 = (uint32_t)ARG5(t);
    bool private = op & FUTEX_PRIVATE_FLAG;
    bool realtime = op & FUTEX_CLOCK_REALTIME;

    if (t->retry) {
        if (t->woken) { t->futex_space = 0; return emulate(t, 0); }
        if (t->timed_out) { t->futex_space = 0; return emulate(t, -ETIMEDOUT); }
        return SYS_BLOCK;
    }
    if (addr & 3) return emulate(t, -EINVAL);
    switch (cmd) {
    case FUTEX_WAIT:
    case FUTEX_WAIT_BITSET: {
        uint32_t bitset = cmd == FUTEX_WAIT ? ~0u : val3;
        if (!bitset) return emulate(t, -EINVAL);
        uint64_t deadline = UINT64_MAX;
        if (ARG3(t)) {
            uint64_t ns;
            int e = read_timespec(t, ARG3(t), &ns);
            if (e) return emulate(t, e);
            if (cmd == FUTEX_WAIT) deadline = w->now + ns;      /* relative */
            else deadline = deadline_for_abs(w, t, realtime ? 0 : 1, ns);
        }
        uint32_t cur;
        if (mem_read(t->tid, addr, &cur, sizeof cur)) return emulate(t, -EFAULT);
        if (cur != val) return emulate(t, -EAGAIN);
        if (deadline <= w->now) return emulate(t, -ETIMEDOUT);
        struct fkey k = key_of(w, t, addr, private);
        t->futex_key = k.off;
        t->futex_space = k.space;
        t->futex_shared = k.shared;
        t->futex_bitset = bitset;
        return block(t, deadline, NULL);
    }
    case FUTEX_WAKE:
    case FUTEX_WAKE_BITSET: {
        uint32_t bitset = cmd == FUTEX_WAKE ? ~0u : val3;
        if (!bitset) return emulate(t, -EINVAL);
        return emulate(t, wake_key(w, key_of(w, t, addr, private), (int)(val > INT_MAX ? INT_MAX : val), bitset));
    }
    case FUTEX_CMP_REQUEUE:
    case FUTEX_REQUEUE: {
        int nwake = (int)val, nreq = (int)ARG3(t);
        if (nwake < 0 || nreq < 0) return emulate(t, -EINVAL);
        if (cmd == FUTEX_CMP_REQUEUE) {
            uint32_t cur;
            if (mem_read(t->tid, addr, &cur, sizeof cur)) return emulate(t, -EFAULT);
            if (cur != val3) return emulate(t, -EAGAIN);
        }
        if (addr == addr2) return emulate(t, -EINVAL);
        struct fkey k = key_of(w, t, addr, private);
        int woken = wake_key(w, k, nwake, ~0u);
        return emulate(t, woken + futex_requeue(w, k, key_of(w, t, addr2, private), nreq));
    }
    case FUTEX_WAKE_OP:
        return emulate(t, wake_op(w, t, private, addr, (int)val, addr2, (int)ARG3(t), val3));
    default:
        /* PI futexes and futex_waitv would need owner tracking: not yet. */
        return SYS_FENCE;
    }
}
