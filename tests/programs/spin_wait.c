/* spin_wait: one thread spins in user space on a flag that another thread
 * sets after a syscall. Natively both run and it finishes; under dsim the
 * spinner may hold the baton forever (no preemption between syscalls), and
 * the spin watchdog must end the run with a report instead of a hang. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <unistd.h>

static atomic_int flag;

static void *setter(void *arg)
{
    (void)arg;
    getppid();
    atomic_store(&flag, 1);
    return NULL;
}

static __attribute__((noinline)) void spin_until_set(void)
{
    while (!atomic_load_explicit(&flag, memory_order_relaxed)) {}
}

int main(void)
{
    pthread_t th;
    pthread_create(&th, NULL, setter, NULL);
    spin_until_set();
    pthread_join(th, NULL);
    puts("flag seen");
    return 0;
}
