/* What the C files of this target share and the C library may not define yet: the numbers of
 * system calls newer than glibc's headers, and the audit architecture a seccomp filter checks.
 * Private to the target (not in include/). */
#ifndef PATHWATCH_SYSCALL_NUMBERS_H
#define PATHWATCH_SYSCALL_NUMBERS_H
#include <linux/audit.h>
#include <sys/syscall.h>

#ifndef SYS_pidfd_send_signal
#define SYS_pidfd_send_signal 424
#endif
#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_clone3
#define SYS_clone3 435
#endif
#ifndef SYS_pidfd_getfd
#define SYS_pidfd_getfd 438
#endif
#ifndef SYS_process_madvise
#define SYS_process_madvise 440
#endif
#ifndef SYS_process_mrelease
#define SYS_process_mrelease 448
#endif

/* ioprio_set(2)'s kinds of target (<linux/ioprio.h> is not in every kernel's headers). */
#ifndef IOPRIO_WHO_PROCESS
#define IOPRIO_WHO_PROCESS 1
#define IOPRIO_WHO_PGRP 2
#endif

#if defined(__x86_64__)
#define PW_AUDIT_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define PW_AUDIT_ARCH AUDIT_ARCH_AARCH64
#endif

/* The low 32 bits of a system call's argument `n`: the kernel reads a pid or a command as an int,
 * whatever a caller left in the register's upper half. */
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define PW_ARG_LOW(n) (offsetof(struct seccomp_data, args[0]) + 8 * (n))
#else
#define PW_ARG_LOW(n) (offsetof(struct seccomp_data, args[0]) + 8 * (n) + 4)
#endif
#endif
