/* The program every machine's pid 1 becomes (machine.c): a whole static
 * ELF executable, 195 bytes, kept in dsim's read-only data and exec'd from
 * a memfd. dsim's init is a fork of dsim: without an exec of its own, a
 * machine reading /proc/1/cmdline, environ, exe or comm would read dsim's
 * command line and the caller's environment, which differ between `dsim
 * run`, `dsim replay` and hosts. PR_SET_MM could rewrite them but needs
 * CAP_SYS_RESOURCE, which dsim may lack.
 *
 * It names itself "init" (an exec through a descriptor names a process
 * after the descriptor, differently on different kernels), closes fd 3,
 * which tells the waiting command that pid 1 is ready, and then reaps
 * children until none is left, as dsim's init did. */
#define LOAD_ADDRESS 0x10000
#define SYS_close 3
#define SYS_wait4 61
#define SYS_prctl 157
#define SYS_exit_group 231
#define PR_SET_NAME 15
#define PR_SET_DUMPABLE 4
#define WALL 0x40000000
#define ECHILD 10

	.section .rodata
	.globl dsim_init_image
	.globl dsim_init_image_end
	.balign 8
dsim_init_image:
	/* ELF header: 64-bit, little-endian, an executable for x86-64. */
	.byte 0x7f, 'E', 'L', 'F', 2, 1, 1, 0
	.quad 0
	.short 2, 62                    /* ET_EXEC, EM_X86_64 */
	.long 1                         /* EV_CURRENT */
	.quad LOAD_ADDRESS + (start - dsim_init_image)     /* e_entry */
	.quad program_header - dsim_init_image             /* e_phoff */
	.quad 0                         /* no section headers */
	.long 0                         /* e_flags */
	.short 64, 56, 1, 0, 0, 0       /* ehsize, phentsize, phnum, shentsize, shnum, shstrndx */
program_header:
	/* One segment: the whole file, read and execute, at LOAD_ADDRESS. */
	.long 1, 5                      /* PT_LOAD, PF_R | PF_X */
	.quad 0, LOAD_ADDRESS, LOAD_ADDRESS
	.quad image_end - dsim_init_image, image_end - dsim_init_image
	.quad 0x1000
start:
	mov $SYS_prctl, %eax            /* prctl(PR_SET_NAME, "init") */
	mov $PR_SET_NAME, %edi
	lea name(%rip), %rsi
	syscall
	mov $SYS_prctl, %eax            /* prctl(PR_SET_DUMPABLE, 0): the machine's */
	mov $PR_SET_DUMPABLE, %edi      /* processes that are not root cannot ptrace */
	xor %esi, %esi                  /* it, nor read or write its memory through */
	syscall                         /* /proc/1 (its root, like a machine's, can) */
	mov $SYS_close, %eax            /* close(3): the command may go on */
	mov $3, %edi
	syscall
reap:
	mov $SYS_wait4, %eax            /* wait4(-1, NULL, __WALL, NULL) */
	mov $-1, %rdi
	xor %esi, %esi
	mov $WALL, %edx
	xor %r10d, %r10d
	syscall
	cmp $-ECHILD, %rax
	jne reap
	mov $SYS_exit_group, %eax       /* no child left: exit(0) */
	xor %edi, %edi
	syscall
name:
	.asciz "init"
image_end:
dsim_init_image_end:

	.section .note.GNU-stack, "", @progbits
