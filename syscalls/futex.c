/* Futexes, emulated in the supervisor: a waiter never sleeps in the kernel,
 * and which waiters a wake picks is drawn from the scheduling stream. */
#include "syscalls/sys.h"
#include "supervisor/tracer.h"
#include <limits.h>
#include <linux/futex.h>
#include <stdlib.h>

static bool waiting_on(const struct thread *t, int mm, uint64_t addr, uint32_t bitset)
{
    return t->state == TS_BLOCKED && !t->woken && t->futex_key == addr && t->futex_mm == mm &&
           (t->futex_bitset & bitset) && t->futex_key;
}

/* Wakes up to n waiters on (mm, addr); returns how many. */
int futex_wake_key(struct world *w, int mm, uint64_t addr, int n, uint32_t bitset)
{
    struct thread *cand[256];
    int nc = 0, woken = 0;
    for (size_t i = 0; i < w->nthreads && nc < 256; i++)
        if (waiting_on(w->threads[i], mm, addr, bitset)) cand[nc++] = w->threads[i];
    while (woken < n && nc > 0) {
        int k = (int)prng_below(&w->sched, (uint64_t)nc);
        cand[k]->woken = true;
        cand[k] = cand[--nc];
        woken++;
    }
    return woken;
}

/* Moves up to n waiters from addr to addr2, in thread order. */
static int futex_requeue(struct world *w, int mm, uint64_t addr, uint64_t addr2, int n)
{
    int moved = 0;
    for (size_t i = 0; i < w->nthreads && moved < n; i++) {
        struct thread *t = w->threads[i];
        if (waiting_on(t, mm, addr, ~0u)) { t->futex_key = addr2; moved++; }
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

static long wake_op(struct world *w, struct thread *t, int mm, uint64_t a1, int n1, uint64_t a2, int n2,
                    uint32_t encoded)
{
    unsigned op = (encoded >> 28) & 7, cmp = (encoded >> 24) & 15;
    int oparg = (int)((encoded << 8) >> 20), cmparg = (int)((encoded << 20) >> 20);
    if (encoded & (FUTEX_OP_OPARG_SHIFT << 28)) {
        if (oparg < 0 || oparg > 31) return -EINVAL;
        oparg = 1 << oparg;
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
    long woken = futex_wake_key(w, mm, a1, n1, ~0u);
    if (wake_op_cmp(cmp, old, cmparg)) woken += futex_wake_key(w, mm, a2, n2, ~0u);
    return woken;
}

enum sys_action sys_futex(struct world *w, struct thread *t)
{
    uint64_t addr = ARG0(t), addr2 = ARG4(t);
    int op = (int)ARG1(t), cmd = op & FUTEX_CMD_MASK;
    uint32_t val = (uint32_t)ARG2(t), val3 = (uint32_t)ARG5(t);
    int mm = t->proc->mm;
    bool realtime = op & FUTEX_CLOCK_REALTIME;

    if (t->retry) {
        if (t->woken) { t->futex_key = 0; return emulate(t, 0); }
        if (t->timed_out) { t->futex_key = 0; return emulate(t, -ETIMEDOUT); }
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
            else deadline = deadline_for_abs(w, realtime ? 0 : 1, ns);
        }
        uint32_t cur;
        if (mem_read(t->tid, addr, &cur, sizeof cur)) return emulate(t, -EFAULT);
        if (cur != val) return emulate(t, -EAGAIN);
        if (deadline <= w->now) return emulate(t, -ETIMEDOUT);
        t->futex_key = addr;
        t->futex_mm = mm;
        t->futex_bitset = bitset;
        return block(t, deadline, NULL);
    }
    case FUTEX_WAKE:
    case FUTEX_WAKE_BITSET: {
        uint32_t bitset = cmd == FUTEX_WAKE ? ~0u : val3;
        if (!bitset) return emulate(t, -EINVAL);
        return emulate(t, futex_wake_key(w, mm, addr, (int)(val > INT_MAX ? INT_MAX : val), bitset));
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
        int woken = futex_wake_key(w, mm, addr, nwake, ~0u);
        return emulate(t, woken + futex_requeue(w, mm, addr, addr2, nreq));
    }
    case FUTEX_WAKE_OP:
        return emulate(t, wake_op(w, t, mm, addr, (int)val, addr2, (int)ARG3(t), val3));
    default:
        /* PI futexes and futex_waitv would need owner tracking: not yet. */
        return SYS_FENCE;
    }
}
