/* show_start: what a program learns of how it was started: its argv, its
 * working directory, its environment (sorted: the shell orders it its own
 * way), its parent and its own pid. One line each. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern char **environ;

static int by_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

int main(int argc, char **argv)
{
    for (int i = 0; i < argc; i++) printf("argv[%d] %s\n", i, argv[i]);
    char cwd[4096];
    printf("cwd %s\n", getcwd(cwd, sizeof cwd) ? cwd : "?");
    size_t n = 0;
    while (environ[n]) n++;
    char **env = calloc(n + 1, sizeof *env);
    memcpy(env, environ, n * sizeof *env);
    qsort(env, n, sizeof *env, by_name);
    for (size_t i = 0; i < n; i++) printf("env %s\n", env[i]);
    printf("pid %d ppid %d\n", (int)getpid(), (int)getppid());
    return 0;
}
