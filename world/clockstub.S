/* The code that answers a machine's clock reads from its clock page
 * (world/clockpage.h), without a system call: copied over the vDSO's
 * clock_gettime at exec (world/rewrite.c), with its gettimeofday and time
 * made jumps into it. dsim never runs it; it is bytes in read-only data,
 * position-independent (its one datum, the page's address, is read
 * RIP-relative from the slot at its end, which dsim writes once the page
 * is mapped).
 *
 * Each read the page answers takes the page's read count i, returns the
 * machine's clock at world time now + i * quantum and counts itself; dsim
 * adds the reads' quanta to the world's time at the thread's next stop and
 * sets the count back to 0. Past `limit` reads without a stop, and for
 * whatever the page cannot answer (another clock id, no page), the read is
 * the system call, which traps as before: so a loop waiting for the clock
 * to pass a deadline still reaches a stop, a scheduling point, every
 * `limit` reads, and errors are the kernel's (dsim's handler's).
 *
 * The page (offsets in bytes; CLOCK_PAGE_* in clockpage.h):
 *   0 magic   8 count   16 limit   24 quantum   32 now (world ns)
 *   40 drift (ppb, signed)   48 monotonic base   56 realtime base
 * A machine's clock at world time n: base + n + n * drift / 10^9 (the
 * quotient truncated toward zero), as machine_elapsed() in world.h. */
#define SYS_gettimeofday 96
#define SYS_time 201
#define SYS_clock_gettime 228
#define MAGIC 0x6b636f6c636d6973        /* "simclock" */
#define MONO_BASE 48
#define REAL_BASE 56
/* Clock ids: realtime ones (REALTIME 0, REALTIME_COARSE 5, TAI 11) and
 * monotonic ones (MONOTONIC 1, MONOTONIC_RAW 4, MONOTONIC_COARSE 6,
 * BOOTTIME 7), as bit masks. */
#define REAL_IDS 0x821
#define MONO_IDS 0x0d2

	.intel_syntax noprefix

/* A read the page does not answer because its reads are spent (or another
 * thread could run) is the system call; but the vDSO would have written
 * the result itself, so a bad address must still be SIGSEGV, not the
 * system call's EFAULT: each 8 bytes it would write are read and written
 * back first (one thread runs at a time: nothing changes them between).
 * Clobbers rax. */
.macro PROBE addr
	mov rax, [\addr]
	mov [\addr], rax
.endm

/* r8 = the page, or jump to fallback: no page yet, or not dsim's. */
.macro PAGE fallback
	mov r8, [rip + dsim_clock_stub_slot]
	test r8, r8
	jz \fallback
	movabs rax, MAGIC
	cmp [r8], rax
	jne \fallback
.endm

/* rax = the machine's clock (base at page offset \base) for this read,
 * which it counts; or jump to fallback when the page's reads are spent.
 * Clobbers rcx, rdx, r9, r10. */
.macro READ base, fallback
	mov rax, [r8 + 8]
	cmp rax, [r8 + 16]
	jae \fallback
	lea rcx, [rax + 1]
	mov [r8 + 8], rcx
	imul rax, [r8 + 24]
	add rax, [r8 + 32]
	mov r9, rax
	mov rcx, [r8 + 40]
	test rcx, rcx
	jz 1f
	imul rcx
	mov r10, 1000000000
	idiv r10
	add r9, rax
1:	mov rax, r9
	add rax, [r8 + \base]
.endm

	.section .rodata
	.globl dsim_clock_stub
	.globl dsim_clock_stub_gettimeofday
	.globl dsim_clock_stub_time
	.globl dsim_clock_stub_syscall
	.globl dsim_clock_stub_slot
	.globl dsim_clock_stub_end
	.balign 16
/* int clock_gettime(clockid_t clk, struct timespec *ts) */
dsim_clock_stub:
	PAGE 9f
	cmp edi, 11
	ja 9f
	mov ecx, edi
	mov edx, 1
	shl edx, cl
	test edx, REAL_IDS
	jnz 2f
	test edx, MONO_IDS
	jz 9f
	READ MONO_BASE, 8f
	jmp 3f
2:	READ REAL_BASE, 8f
3:	xor edx, edx
	mov ecx, 1000000000
	div rcx
	mov [rsi], rax
	mov [rsi + 8], rdx
	xor eax, eax
	ret
8:	PROBE rsi
	PROBE rsi + 8
9:	mov eax, SYS_clock_gettime
dsim_clock_stub_syscall:		/* dsim's calls at exec run here too (clockpage.c) */
	syscall
	ret

/* int gettimeofday(struct timeval *tv, struct timezone *tz) */
	.balign 16
dsim_clock_stub_gettimeofday:
	PAGE 9f
	test rdi, rdi
	jz 2f
	READ REAL_BASE, 8f
	xor edx, edx
	mov ecx, 1000000000
	div rcx
	mov [rdi], rax
	mov rax, rdx
	xor edx, edx
	mov ecx, 1000
	div rcx
	mov [rdi + 8], rax
2:	test rsi, rsi
	jz 3f
	mov qword ptr [rsi], 0
3:	xor eax, eax
	ret
8:	PROBE rdi
	PROBE rdi + 8
	test rsi, rsi
	jz 9f
	PROBE rsi
9:	mov eax, SYS_gettimeofday
	syscall
	ret

/* time_t time(time_t *t) */
	.balign 16
dsim_clock_stub_time:
	PAGE 9f
	READ REAL_BASE, 8f
	xor edx, edx
	mov ecx, 1000000000
	div rcx
	test rdi, rdi
	jz 2f
	mov [rdi], rax
2:	ret
8:	test rdi, rdi
	jz 9f
	PROBE rdi
9:	mov eax, SYS_time
	syscall
	ret

	.balign 8
dsim_clock_stub_slot:
	.quad 0
dsim_clock_stub_end:
	.section .note.GNU-stack, "", @progbits
