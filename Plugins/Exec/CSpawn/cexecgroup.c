/* Whether a command's process group has a member left: see cexecspawn.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <sys/resource.h>
#include "cexecspawn.h"

/* getpriority(PRIO_PGRP) walks the group's members and answers ESRCH when there is none, as
 * kill(-group) would, but it only reads: no call guard rules on it, where a plug-in child's
 * kill(-group) after every reap would be a call the agent has to rule on. */
int pw_exec_group_has_members(pid_t pgid) {
    if (pgid <= 0) return 1;
    errno = 0;
    int nice = getpriority(PRIO_PGRP, (id_t)pgid);
    return !(nice == -1 && errno == ESRCH);
}
