/* host_counter: a program whose course depends on a file of the host, for
 * `dsim verify`'s explanation of nondeterminism.
 *
 * Usage: host_counter FILE. Reads a number N from FILE (a host file outside
 * the machine's own writes), makes N % 8 + 1 getppid() calls in
 * follow_counter(), then prints "counter N" and exits 0. A test that
 * changes FILE between runs (a [check] that bumps it) makes each run of one
 * seed take another course: the first event where two runs differ is where
 * one makes one more getppid() than the other. Exit 2 if FILE cannot be
 * read. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

__attribute__((noinline)) static void follow_counter(long n)
{
    for (long i = 0; i < n % 8 + 1; i++) getppid();
}

int main(int argc, char **argv)
{
    if (argc != 2) { fprintf(stderr, "usage: host_counter FILE\n"); return 2; }
    FILE *f = fopen(argv[1], "r");
    long n;
    if (!f || fscanf(f, "%ld", &n) != 1) { perror(argv[1]); return 2; }
    fclose(f);
    follow_counter(n);
    printf("counter %ld\n", n);
    return 0;
}
