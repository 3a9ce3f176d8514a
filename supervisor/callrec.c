/* Call and value records (callrec.h). A record decides its text exactly,
 * and two records with one text are one record: every argument is kept in
 * the canonical form its printing depends on (an int as an int, a pointer
 * as whether it is NULL, a path as the bytes read, a futex op as the bits
 * named), so hashing records means what hashing the text meant. */
#include "supervisor/callrec.h"
#include "world/tracer.h"
#include "syscalls/sys.h"
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

enum { REC_CALL = 1 };        /* 2: a value record (world/world.c, trace_value) */
#define PATH_SHOWN 96           /* a path argument: up to 95 bytes are shown */

static unsigned char *put(unsigned char *p, uint64_t v, int n)
{
    for (int i = 0; i < n; i++) p[i] = (unsigned char)(v >> (8 * i));
    return p + n;
}

static uint64_t get(const unsigned char **p, int n)
{
    uint64_t v = 0;
    for (int i = 0; i < n; i++) v |= (uint64_t)(*p)[i] << (8 * i);
    *p += n;
    return v;
}

static const char *errname(long e)
{
    const char *n = strerrorname_np((int)e);
    return n ? n : "E?";
}

/* The syscall's name and argument kinds; a number no name is known for
 * prints as "unknown" whatever it is, so it is kept as -1. */
static const struct sys_entry *entry_of(long *nr)
{
    const struct sys_entry *e = sys_lookup(*nr);
    if (!e->handler && !strcmp(e->name, "unknown")) *nr = -1;
    return e;
}

static const char *arg_kinds(const struct sys_entry *e) { return e && e->args ? e->args : "xxxxxx"; }

/* What a futex op's text shows: the command, and for a known one its
 * PRIVATE and CLOCK_REALTIME bits. */
static uint32_t futex_op_shown(int op) { return (op & 127) < 14 ? (uint32_t)op & 0x1ff : (uint32_t)op; }

size_t call_rec_encode(struct thread *t, unsigned char *rec)
{
    long nr = SYSNR(t);
    const struct sys_entry *e = entry_of(&nr);
    const char *args = arg_kinds(e);
    unsigned long long v[6] = { ARG0(t), ARG1(t), ARG2(t), ARG3(t), ARG4(t), ARG5(t) };
    unsigned char *p = rec;
    *p++ = REC_CALL;
    p = put(p, (uint64_t)(uint32_t)nr, 4);
    for (int i = 0; i < 6 && args[i] && args[i] != '-'; i++) {
        switch (args[i]) {
        case 'd': case 'f': p = put(p, (uint32_t)(int)v[i], 4); break;
        case 'l': p = put(p, v[i], 8); break;
        case 's': {
            char s[PATH_SHOWN];
            ssize_t n = v[i] ? mem_read_str(t->tid, v[i], s, sizeof s) : -1;
            if (n < 0) { *p++ = 0; break; }
            *p++ = (unsigned char)(n + 1);
            memcpy(p, s, (size_t)n);
            p += n;
            break;
        }
        case 'p': *p++ = v[i] != 0; break;
        case 'F': p = put(p, futex_op_shown((int)v[i]), 4); break;
        case 'I': p = put(p, v[i] >= 0x10000 ? 0x10000 : v[i], 4); break;   /* an address prints as p */
        default: p = put(p, v[i], 8); break;
        }
    }
    return (size_t)(p - rec);
}

size_t call_rec_end(unsigned char *rec, size_t len, enum call_end end, long result)
{
    unsigned char *p = rec + len;
    if (end != CALL_RESULT) {
        *p++ = (unsigned char)end;
    } else if (result < 0 && result > -4096) {
        *p++ = CALL_RESULT + 1;                         /* an error: its name */
        p = put(p, strerrorname_np((int)-result) ? (uint64_t)-result : 0, 2);
    } else {
        *p++ = CALL_RESULT;
        p = put(p, (uint64_t)result, 8);
    }
    return (size_t)(p - rec);
}

/* FUTEX_WAIT_PRIVATE, FUTEX_WAIT_BITSET|FUTEX_CLOCK_REALTIME, ...: what a
 * reader of a deadlock report needs to see. */
static size_t format_futex_op(char *buf, size_t len, const char *sep, int op)
{
    static const char *const cmds[] = { "WAIT", "WAKE", "FD", "REQUEUE", "CMP_REQUEUE", "WAKE_OP", "LOCK_PI",
                                        "UNLOCK_PI", "TRYLOCK_PI", "WAIT_BITSET", "WAKE_BITSET",
                                        "WAIT_REQUEUE_PI", "CMP_REQUEUE_PI", "LOCK_PI2" };
    int cmd = op & 127;
    int n = cmd < 14 ? snprintf(buf, len, "%sFUTEX_%s%s%s", sep, cmds[cmd], op & 128 ? "_PRIVATE" : "",
                                op & 256 ? "|FUTEX_CLOCK_REALTIME" : "")
                     : snprintf(buf, len, "%s%#x", sep, op);
    return n < 0 ? 0 : (size_t)n < len ? (size_t)n : len - 1;
}

/* Appends to buf (cap bytes, off used), as snprintf would; the new offset. */
static size_t add(char *buf, size_t cap, size_t off, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static size_t add(char *buf, size_t cap, size_t off, const char *fmt, ...)
{
    if (off >= cap) return off;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf + off, cap - off, fmt, ap);
    va_end(ap);
    return n < 0 ? off : off + (size_t)n;
}

static void format_call_rec(const unsigned char *p, const unsigned char *endp, char *buf, size_t cap)
{
    long nr = (long)(int32_t)(uint32_t)get(&p, 4);
    const struct sys_entry *e = entry_of(&nr);
    const char *args = arg_kinds(e);
    size_t off = add(buf, cap, 0, "%s(", e->name ? e->name : "?");
    for (int i = 0; i < 6 && args[i] && args[i] != '-' && off < cap; i++) {
        const char *sep = i ? ", " : "";
        switch (args[i]) {
        case 'd': case 'f': off = add(buf, cap, off, "%s%d", sep, (int)(uint32_t)get(&p, 4)); break;
        case 'l': off = add(buf, cap, off, "%s%lld", sep, (long long)get(&p, 8)); break;
        case 's': {
            size_t n = *p++;
            if (!n) { off = add(buf, cap, off, "%sNULL", sep); break; }
            off = add(buf, cap, off, "%s\"%.*s\"", sep, (int)(n - 1), (const char *)p);
            p += n - 1;
            break;
        }
        case 'p': off = add(buf, cap, off, "%s%s", sep, *p++ ? "p" : "NULL"); break;
        case 'F': if (off < cap) off += format_futex_op(buf + off, cap - off, sep, (int)(uint32_t)get(&p, 4)); break;
        case 'I': {
            uint64_t v = get(&p, 4);
            off = v >= 0x10000 ? add(buf, cap, off, "%sp", sep) : add(buf, cap, off, "%s%#llx", sep, (unsigned long long)v);
            break;
        }
        default: off = add(buf, cap, off, "%s%#llx", sep, (unsigned long long)get(&p, 8)); break;
        }
    }
    off = add(buf, cap, off, ")");
    if (p >= endp) return;                      /* a call without its end: format_call */
    switch (*p++) {
    case CALL_BLOCKS: add(buf, cap, off, " blocks"); break;
    case CALL_FENCE: add(buf, cap, off, " fence"); break;
    case CALL_RESULT: add(buf, cap, off, " = %ld", (long)get(&p, 8)); break;
    case CALL_RESULT + 1: {
        long e = (long)get(&p, 2);
        add(buf, cap, off, " = -1 %s", e ? errname(e) : "E?");
        break;
    }
    default: break;
    }
}

void callrec_format(const void *rec, size_t len, char *buf, size_t cap)
{
    const unsigned char *p = rec, *endp = p + len;
    if (!cap) return;
    buf[0] = 0;
    if (len && *p == REC_CALL) format_call_rec(p + 1, endp, buf, cap);
}

_Static_assert(sizeof ((struct thread *)0)->pending_rec >= CALL_REC_MAX, "pending_rec holds a call record");
