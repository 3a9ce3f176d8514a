/* listdir: creates 3000 files in a fresh directory in a scrambled order,
 * then lists it with readdir (many getdents64 calls), rewinds and lists
 * again, and checks telldir/seekdir. Prints "sorted" if the listing came in
 * name order (dsim sorts listings so they do not depend on the filesystem's
 * hash order), "unsorted" otherwise, then checks that every file was seen
 * exactly once in both passes and that seekdir resumes where telldir was. */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define N 3000

static int list(DIR *d, char names[][32], int max)
{
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        if (e->d_name[0] != '.' && n < max) snprintf(names[n++], 32, "%.31s", e->d_name);
    return n;
}

int main(int argc, char **argv)
{
    const char *base = argc > 1 ? argv[1] : "/tmp";
    char dir[256];
    snprintf(dir, sizeof dir, "%s/listdir.XXXXXX", base);
    if (!mkdtemp(dir)) { perror("mkdtemp"); return 2; }
    for (int i = 0; i < N; i++) {
        char path[300];
        snprintf(path, sizeof path, "%s/file-%05d", dir, (i * 7919) % N);
        close(open(path, O_CREAT | O_WRONLY, 0644));
    }
    static char a[N + 10][32], b[N + 10][32];
    DIR *d = opendir(dir);
    int na = list(d, a, N + 10);
    rewinddir(d);
    int nb = list(d, b, N + 10);
    int sorted = 1, same = na == nb;
    for (int i = 1; i < na; i++) if (strcmp(a[i - 1], a[i]) >= 0) sorted = 0;
    for (int i = 0; same && i < na; i++) if (strcmp(a[i], b[i])) same = 0;
    printf("%s\n", sorted ? "sorted" : "unsorted");
    printf("entries %d, second pass %s\n", na, same ? "identical" : "DIFFERENT");
    /* telldir in the middle, read one, seekdir back: the same one again. */
    rewinddir(d);
    for (int i = 0; i < 1500; i++) readdir(d);
    long mark = telldir(d);
    struct dirent *e = readdir(d);
    char first[32];
    snprintf(first, sizeof first, "%.31s", e ? e->d_name : "");
    for (int i = 0; i < 700; i++) readdir(d);
    seekdir(d, mark);
    e = readdir(d);
    printf("seekdir %s\n", e && !strcmp(e->d_name, first) ? "resumes" : "LOST");
    closedir(d);
    for (int i = 0; i < N; i++) {
        char path[300];
        snprintf(path, sizeof path, "%s/file-%05d", dir, i);
        unlink(path);
    }
    rmdir(dir);
    return na == N && same ? 0 : 1;
}
