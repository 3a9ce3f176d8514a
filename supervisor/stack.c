#include "supervisor/stack.h"
#include <libunwind-ptrace.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* The object file holding addr, from /proc/PID/maps (reports only), and
 * addr's offset in that file. */
static void object_of(pid_t tid, unsigned long addr, char *out, size_t len, unsigned long *file_off)
{
    char path[64], line[512];
    snprintf(path, sizeof path, "/proc/%d/maps", tid);
    snprintf(out, len, "?");
    *file_off = 0;
    FILE *f = fopen(path, "r");
    if (!f) return;
    while (fgets(line, sizeof line, f)) {
        unsigned long lo, hi, off;
        int pos = 0;
        if (sscanf(line, "%lx-%lx %*s %lx %*s %*s %n", &lo, &hi, &off, &pos) < 3 || addr < lo || addr >= hi) continue;
        *file_off = addr - lo + off;
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
            unsigned long in_file;
            unw_proc_info_t pi;
            unw_get_reg(&c, UNW_REG_IP, &ip);
            bool named = unw_get_proc_name(&c, name, sizeof name, &fo) == 0;
            /* In a stripped library the nearest symbol may belong to another
             * function (a static one has no symbol): trust a name only if
             * it starts the procedure the unwind tables put ip in. */
            if (named && unw_get_proc_info(&c, &pi) == 0 && pi.start_ip && ip - fo != pi.start_ip) named = false;
            object_of(tid, (unsigned long)ip, obj, sizeof obj, &in_file);
            int w = named ? snprintf(buf + off, len - off, "    #%d 0x%lx %s+%#lx (%s)\n", n, (unsigned long)ip,
                                     name, (unsigned long)fo, obj)
                          : snprintf(buf + off, len - off, "    #%d 0x%lx ?? (%s+%#lx)\n", n, (unsigned long)ip, obj,
                                     in_file);
            if (w < 0 || (size_t)w >= len - off) break;
            off += (size_t)w;
        } while (++n < 24 && unw_step(&c) > 0);
    }
    if (ui) _UPT_destroy(ui);
    unw_destroy_addr_space(as);
    return n;
}
