/* flock_wait: a parent holds an exclusive flock; a forked child's blocking
 * flock must wait (never sleeping in the kernel under dsim) until the parent
 * unlocks, so "parent unlocking" always comes before "child got lock". */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    char path[256];
    snprintf(path, sizeof path, "%s/flock_wait.lock", argc > 1 ? argv[1] : "/tmp");
    int fd = open(path, O_CREAT | O_RDWR | O_CLOEXEC, 0600);
    if (fd < 0 || flock(fd, LOCK_EX)) { perror("flock"); return 2; }
    pid_t p = fork();
    if (p == 0) {
        int f2 = open(path, O_RDWR);
        flock(f2, LOCK_EX);
        printf("child got lock\n");
        fflush(stdout);
        _exit(0);
    }
    usleep(100000);
    printf("parent unlocking\n");
    fflush(stdout);
    flock(fd, LOCK_UN);
    int st;
    waitpid(p, &st, 0);
    unlink(path);
    return WEXITSTATUS(st);
}
