/* A mount's id and device, as statx gives them for a path under it, are
 * those /proc/self/mountinfo lists for the mount, and an fd's fdinfo gives
 * the same mount id and statx's inode; every mount's parent is listed but
 * the root's. Prints, for /, /proc, /dev and /dev/shm, whether they agree:
 * the same natively and under dsim. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#define MAX 512
static struct { int id, parent; unsigned major, minor; char point[512]; } mounts[MAX];
static int n;

/* /proc/self/fdinfo of an fd on path gives the mount id and inode. */
static int fdinfo_agrees(const char *path, int id, unsigned long long ino)
{
    int fd = open(path, O_PATH | O_CLOEXEC);
    char name[64], line[256];
    snprintf(name, sizeof name, "/proc/self/fdinfo/%d", fd);
    FILE *f = fd >= 0 ? fopen(name, "r") : NULL;
    int got_id = -1;
    unsigned long long got_ino = 0;
    while (f && fgets(line, sizeof line, f)) {
        sscanf(line, "mnt_id: %d", &got_id);
        sscanf(line, "ino: %llu", &got_ino);
    }
    if (f) fclose(f);
    if (fd >= 0) close(fd);
    return got_id == id && got_ino == ino;
}

int main(void)
{
    FILE *f = fopen("/proc/self/mountinfo", "r");
    char line[4096];
    while (f && n < MAX && fgets(line, sizeof line, f))
        if (sscanf(line, "%d %d %u:%u %*s %511s", &mounts[n].id, &mounts[n].parent, &mounts[n].major,
                   &mounts[n].minor, mounts[n].point) == 5)
            n++;
    if (f) fclose(f);
    int orphans = 0;
    for (int i = 0; i < n; i++) {
        int k = 0;
        while (k < n && mounts[k].id != mounts[i].parent) k++;
        orphans += k == n;
    }
    printf("mounts whose parent is not listed: %d\n", orphans);
    static const char *const paths[] = { "/", "/proc", "/dev", "/dev/shm" };
    for (size_t p = 0; p < sizeof paths / sizeof *paths; p++) {
        int last = -1;      /* the mount on top at that point */
        for (int i = 0; i < n; i++)
            if (!strcmp(mounts[i].point, paths[p])) last = i;
        struct statx sx;
        if (last < 0 || statx(AT_FDCWD, paths[p], 0, STATX_BASIC_STATS | STATX_MNT_ID, &sx) != 0) {
            printf("%s: not found\n", paths[p]);
            continue;
        }
        printf("%s: mount id %s, device %s, fdinfo %s\n", paths[p],
               !(sx.stx_mask & STATX_MNT_ID) ? "not given" : (int)sx.stx_mnt_id == mounts[last].id ? "agrees" : "differs",
               sx.stx_dev_major == mounts[last].major && sx.stx_dev_minor == mounts[last].minor ? "agrees" : "differs",
               fdinfo_agrees(paths[p], mounts[last].id, sx.stx_ino) ? "agrees" : "differs");
    }
    puts("ok");
    return 0;
}
