/* pidfd_open(2) through syscall(2) (glibc before 2.36 has no wrapper), and posix_spawn's
 * closefrom action, a GNU extension. */
#define _GNU_SOURCE
#include <spawn.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "cchildprocess.h"

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif

int pw_pidfd_open(pid_t pid) { return (int)syscall(SYS_pidfd_open, pid, 0); }

int pw_spawn_close_from(posix_spawn_file_actions_t *actions, int from) {
    return posix_spawn_file_actions_addclosefrom_np(actions, from);
}
