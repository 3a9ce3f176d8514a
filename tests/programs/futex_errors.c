/* futex at its edges: what each call returns (result and errno) for bad
 * addresses, protections, flags, timeouts and commands. Printed one line
 * per case, so a run under dsim can be compared with a native one. */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static void show(const char *what, long r)
{
    printf("%-40s %ld %s\n", what, r, r < 0 ? strerrorname_np(errno) : "-");
}

static long fx(void *uaddr, int op, uint32_t val, const void *timeout_or_val2, void *uaddr2, uint32_t val3)
{
    return syscall(SYS_futex, uaddr, op, val, timeout_or_val2, uaddr2, val3);
}

int main(void)
{
    long page = sysconf(_SC_PAGESIZE);
    uint32_t *rw = mmap(NULL, 3 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    uint32_t *ro = (uint32_t *)((char *)rw + page), *none = (uint32_t *)((char *)rw + 2 * page);
    uint32_t *gone = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    munmap(gone, page);
    mprotect(ro, page, PROT_READ);
    mprotect(none, page, PROT_NONE);
    uint32_t *kernel = (uint32_t *)0xffffffffff600000ULL;
    struct timespec past = { 0, 0 }, bad = { 0, -1 }, soon = { 0, 1000 };
    int P = FUTEX_PRIVATE_FLAG;
    *rw = 5;

    /* Wake: a private key needs no mapping; a shared one needs a readable page. */
    show("wake private unmapped", fx(gone, FUTEX_WAKE | P, 1, NULL, NULL, 0));
    show("wake shared unmapped", fx(gone, FUTEX_WAKE, 1, NULL, NULL, 0));
    show("wake shared prot_none", fx(none, FUTEX_WAKE, 1, NULL, NULL, 0));
    show("wake shared read-only", fx(ro, FUTEX_WAKE, 1, NULL, NULL, 0));
    show("wake private kernel address", fx(kernel, FUTEX_WAKE | P, 1, NULL, NULL, 0));
    show("wake misaligned", fx((char *)rw + 1, FUTEX_WAKE | P, 1, NULL, NULL, 0));
    show("wake_bitset zero bitset", fx(rw, FUTEX_WAKE_BITSET | P, 1, NULL, NULL, 0));
    show("wake_bitset zero bitset unmapped", fx(gone, FUTEX_WAKE_BITSET, 1, NULL, NULL, 0));
    /* Wait. */
    show("wait value differs", fx(rw, FUTEX_WAIT | P, 4, NULL, NULL, 0));
    show("wait past timeout", fx(rw, FUTEX_WAIT | P, 5, &past, NULL, 0));
    show("wait bad timeout", fx(rw, FUTEX_WAIT | P, 5, &bad, NULL, 0));
    show("wait timeout unmapped", fx(rw, FUTEX_WAIT | P, 5, gone, NULL, 0));
    show("wait unmapped", fx(gone, FUTEX_WAIT | P, 5, &soon, NULL, 0));
    show("wait shared prot_none", fx(none, FUTEX_WAIT, 0, &soon, NULL, 0));
    show("wait misaligned bad timeout", fx((char *)rw + 2, FUTEX_WAIT | P, 5, &bad, NULL, 0));
    show("wait realtime flag", fx(rw, FUTEX_WAIT | P | FUTEX_CLOCK_REALTIME, 5, &soon, NULL, 0));
    show("wait_bitset realtime past", fx(rw, FUTEX_WAIT_BITSET | P | FUTEX_CLOCK_REALTIME, 5, &past, NULL, ~0u));
    show("wait_bitset zero bitset", fx(rw, FUTEX_WAIT_BITSET | P, 5, &soon, NULL, 0));
    show("wait_bitset soon", fx(rw, FUTEX_WAIT_BITSET | P, 5, &soon, NULL, ~0u));
    show("wait soon", fx(rw, FUTEX_WAIT | P, 5, &soon, NULL, 0));
    show("wake realtime flag", fx(rw, FUTEX_WAKE | P | FUTEX_CLOCK_REALTIME, 1, NULL, NULL, 0));
    /* Requeue. */
    show("requeue same address", fx(rw, FUTEX_REQUEUE | P, 1, (void *)1, rw, 0));
    show("cmp_requeue same address", fx(rw, FUTEX_CMP_REQUEUE | P, 1, (void *)1, rw, 5));
    show("cmp_requeue value differs", fx(rw, FUTEX_CMP_REQUEUE | P, 1, (void *)1, rw + 1, 6));
    show("cmp_requeue negative", fx(rw, FUTEX_CMP_REQUEUE | P, (uint32_t)-1, (void *)1, rw + 1, 5));
    show("requeue shared to unmapped", fx(rw, FUTEX_REQUEUE, 1, (void *)1, gone, 0));
    show("requeue shared from prot_none", fx(none, FUTEX_REQUEUE, 1, (void *)1, rw, 0));
    show("requeue private to unmapped", fx(rw, FUTEX_REQUEUE | P, 1, (void *)1, gone, 0));
    show("cmp_requeue private from unmapped", fx(gone, FUTEX_CMP_REQUEUE | P, 1, (void *)1, rw, 5));
    show("requeue misaligned target", fx(rw, FUTEX_REQUEUE | P, 1, (void *)1, (char *)rw + 1, 0));
    /* Wake-op: the second word is written. */
    uint32_t op_add1 = FUTEX_OP(FUTEX_OP_ADD, 1, FUTEX_OP_CMP_EQ, 0);
    show("wake_op read-only second", fx(rw, FUTEX_WAKE_OP | P, 1, (void *)1, ro, op_add1));
    show("wake_op shared read-only second", fx(rw, FUTEX_WAKE_OP, 1, (void *)1, ro, op_add1));
    show("wake_op unmapped second", fx(rw, FUTEX_WAKE_OP | P, 1, (void *)1, gone, op_add1));
    show("wake_op bad cmp", fx(rw, FUTEX_WAKE_OP | P, 1, (void *)1, rw + 1, op_add1 | (9u << 24)));
    show("wake_op ok", fx(rw, FUTEX_WAKE_OP | P, 1, (void *)1, rw + 1, op_add1));
    show("wake_op shift out of range", fx(rw, FUTEX_WAKE_OP | P, 1, (void *)1, rw + 1,
                                          FUTEX_OP((FUTEX_OP_ADD | FUTEX_OP_OPARG_SHIFT), 40, FUTEX_OP_CMP_EQ, 0)));
    show("wake_op unknown op", fx(rw, FUTEX_WAKE_OP | P, 1, (void *)1, rw + 1, FUTEX_OP(7, 1, FUTEX_OP_CMP_EQ, 0)));
    printf("%-40s %u\n", "wake_op second word", rw[1]);
    /* Commands. */
    show("futex_fd", fx(rw, 2 /* FUTEX_FD */, 0, NULL, NULL, 0));
    show("unknown command", fx(rw, 30 | P, 0, NULL, NULL, 0));
    return 0;
}
