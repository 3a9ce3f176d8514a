/* A careless (or hostile) program that reaches a host directory through
 * symlinks it made on its own disk, and changes things through them, then
 * is crashed before any of it is durable. Names it removed are replaced by
 * symlinks to the same directory, so that a crash's undo that followed
 * them would land on the host. Under dsim the crash undoes its own disk
 * only: the host directory is never touched. Usage: symlink_escape DIR
 * (the host directory; each step's result is printed). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void step(const char *what, int r)
{
    printf("%s %s\n", what, r == 0 ? "ok" : strerror(errno));
}

static int make_file(const char *path)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) return -1;
    int r = write(fd, "machine\n", 8) == 8 ? 0 : -1;
    close(fd);
    return r;
}

int main(int argc, char **argv)
{
    if (argc < 2) return 2;
    const char *host = argv[1];
    char path[4096];
    mkdir("/var/tmp/esc", 0755);
    if (chdir("/var/tmp/esc") != 0) return 1;
    step("symlink link", symlink(host, "link"));
    /* Through the link, relative and absolute. */
    step("unlink link/victim/a", unlink("link/victim/a"));
    step("rmdir link/victim/sub", rmdir("link/victim/sub"));
    step("rename link/victim/b", rename("link/victim/b", "link/victim/b2"));
    step("mkdir link/newdir", mkdir("link/newdir", 0755));
    step("create link/newfile", make_file("link/newfile"));
    step("link link/file", link("link/file", "link/file.hard"));
    snprintf(path, sizeof path, "/var/tmp/esc/link/victim/c");
    step("unlink /var/tmp/esc/link/victim/c", unlink(path));
    step("overwrite link/file", make_file("link/file"));
    /* A directory removed, then a symlink to the host in its place. */
    step("mkdir d", mkdir("d", 0755));
    step("create d/x", make_file("d/x"));
    step("unlink d/x", unlink("d/x"));
    step("rmdir d", rmdir("d"));
    step("symlink d", symlink(host, "d"));
    /* A directory renamed away, then a symlink under its old name. */
    step("mkdir e", mkdir("e", 0755));
    step("create e/y", make_file("e/y"));
    step("rename e", rename("e", "e2"));
    step("symlink e", symlink(host, "e"));
    /* The same through /proc/self/cwd, a magic link that means this
     * process's directory here but the resolver's own elsewhere: a file
     * made in a directory that is then renamed away and replaced by a
     * symlink to the host, both through the magic link. */
    step("symlink pc", symlink("/proc/self/cwd", "pc"));
    step("mkdir f", mkdir("f", 0755));
    step("create f/x", make_file("f/x"));
    step("rename pc/f", rename("pc/f", "pc/f2"));
    step("symlink pc/f", symlink(host, "pc/f"));
    /* The link itself renamed over a directory of the same path. */
    step("mkdir victim", mkdir("victim", 0755));
    step("rename link over victim", rename("link", "victim") == 0 || errno == EISDIR || errno == ENOTDIR ? 0 : -1);
    fflush(stdout);
    for (;;) pause();       /* the crash comes before anything was synced */
}
