/*
 * cpidfd.h — pidfd_open(2) for Swift, which reaches it only through the variadic syscall(2) that
 * Swift cannot call. The agent polls a plug-in child's pidfd to learn that the child has ended
 * even while something the child started still holds the child's end of its socket.
 */
#ifndef PATHWATCH_CPIDFD_H
#define PATHWATCH_CPIDFD_H

#include <sys/types.h>

/* A descriptor that polls readable once process `pid` has ended (close-on-exec), or -1 with
 * errno set (kernels before 5.3 have no pidfd: the caller then relies on the socket alone). */
int pw_pidfd_open(pid_t pid);

#endif
