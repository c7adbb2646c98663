/* pidfd_open(2) through syscall(2): glibc before 2.36 has no wrapper for it. */
#define _GNU_SOURCE
#include <sys/syscall.h>
#include <unistd.h>
#include "cpidfd.h"

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif

int pw_pidfd_open(pid_t pid) { return (int)syscall(SYS_pidfd_open, pid, 0); }
