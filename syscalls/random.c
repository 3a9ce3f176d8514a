/* Entropy: every random byte a machine sees comes from its own PRNG stream. */
#include "syscalls/sys.h"
#include "world/tracer.h"
#include <stdlib.h>
#include <sys/random.h>

/* Fills len bytes at addr in the tracee; returns len or -EFAULT. */
long random_to_tracee(struct world *w, struct thread *t, uint64_t addr, size_t len)
{
    unsigned char chunk[65536];
    for (size_t done = 0; done < len;) {
        size_t n = len - done < sizeof chunk ? len - done : sizeof chunk;
        random_fill(w, t, chunk, n);
        if (mem_write(t->tid, addr + done, chunk, n)) return done ? (long)done : -EFAULT;
        done += n;
    }
    return (long)len;
}

enum sys_action sys_getrandom(struct world *w, struct thread *t)
{
    if (ARG2(t) & ~(unsigned long long)(GRND_NONBLOCK | GRND_RANDOM | GRND_INSECURE)) return emulate(t, -EINVAL);
    if ((ARG2(t) & GRND_RANDOM) && (ARG2(t) & GRND_INSECURE)) return emulate(t, -EINVAL);
    size_t len = ARG1(t) > 33554431 ? 33554431 : (size_t)ARG1(t);
    return emulate(t, random_to_tracee(w, t, ARG0(t), len));
}
