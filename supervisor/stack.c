#include "supervisor/stack.h"
#include <libunwind-ptrace.h>
#include <stdio.h>
#include <string.h>

/* The object file holding addr, from /proc/PID/maps (reports only). */
static void object_of(pid_t tid, unsigned long addr, char *out, size_t len)
{
    char path[64], line[512];
    snprintf(path, sizeof path, "/proc/%d/maps", tid);
    snprintf(out, len, "?");
    FILE *f = fopen(path, "r");
    if (!f) return;
    while (fgets(line, sizeof line, f)) {
        unsigned long lo, hi;
        int pos = 0;
        if (sscanf(line, "%lx-%lx %*s %*s %*s %*s %n", &lo, &hi, &pos) < 2 || addr < lo || addr >= hi) continue;
        line[strcspn(line, "\n")] = 0;
        const char *obj = pos > 0 && line[pos] ? line + pos : "[anonymous]";
        const char *base = strrchr(obj, '/');
        snprintf(out, len, "%s", base ? base + 1 : obj);
        break;
    }
    fclose(f);
}

int stack_format(pid_t tid, char *buf, size_t len)
{
    buf[0] = 0;
    unw_addr_space_t as = unw_create_addr_space(&_UPT_accessors, 0);
    if (!as) return 0;
    void *ui = _UPT_create(tid);
    unw_cursor_t c;
    int n = 0;
    size_t off = 0;
    if (ui && unw_init_remote(&c, as, ui) == 0) {
        do {
            unw_word_t ip = 0, fo = 0;
            char name[200], obj[128];
            unw_get_reg(&c, UNW_REG_IP, &ip);
            if (unw_get_proc_name(&c, name, sizeof name, &fo) != 0) snprintf(name, sizeof name, "??");
            object_of(tid, (unsigned long)ip, obj, sizeof obj);
            int w = snprintf(buf + off, len - off, "    #%d 0x%lx %s+%#lx (%s)\n", n, (unsigned long)ip,
                             name, (unsigned long)fo, obj);
            if (w < 0 || (size_t)w >= len - off) break;
            off += (size_t)w;
        } while (++n < 24 && unw_step(&c) > 0);
    }
    if (ui) _UPT_destroy(ui);
    unw_destroy_addr_space(as);
    return n;
}
