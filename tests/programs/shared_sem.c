/* shared_sem: a parent and a forked child meet on a process-shared
 * semaphore, in POSIX shm (sem_open, "named") or in MAP_SHARED anonymous
 * memory ("anon"). The futex lives in shared memory at different addresses
 * or address spaces, so it must be keyed by the backing inode and offset.
 * The child posts 100 times; the parent waits 100 times. */
#include <fcntl.h>
#include <semaphore.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int anon = argc > 1 && !strcmp(argv[1], "anon");
    sem_t *s;
    if (anon) {
        s = mmap(NULL, sizeof *s, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
        sem_init(s, 1, 0);
    } else {
        char name[64];
        snprintf(name, sizeof name, "/dsim-shared-sem-%d", getpid());
        s = sem_open(name, O_CREAT | O_EXCL, 0600, 0);
        sem_unlink(name);
    }
    if (s == MAP_FAILED || s == SEM_FAILED) { perror("semaphore"); return 2; }
    pid_t p = fork();
    if (p == 0) {
        for (int i = 0; i < 100; i++) { getppid(); sem_post(s); }
        _exit(0);
    }
    for (int i = 0; i < 100; i++) sem_wait(s);
    int st;
    waitpid(p, &st, 0);
    printf("%s: 100 posts seen, child status %d\n", anon ? "anon" : "named", WEXITSTATUS(st));
    return 0;
}
