/* pidfd_open(2) through syscall(2) (glibc before 2.36 has no wrapper), posix_spawn's closefrom
 * action and new-session flag (GNU extensions), and the seccomp filter that keeps a plug-in
 * child's signals away from the agent. */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <spawn.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "cchildprocess.h"
#include "syscall_numbers.h"

int pw_pidfd_open(pid_t pid) { return (int)syscall(SYS_pidfd_open, pid, 0); }

int pw_spawn_close_from(posix_spawn_file_actions_t *actions, int from) {
    return posix_spawn_file_actions_addclosefrom_np(actions, from);
}

int pw_spawnattr_own_session_default_signals(posix_spawnattr_t *attr) {
    sigset_t none, all;
    sigemptyset(&none);
    sigfillset(&all);
    int failed = posix_spawnattr_setsigmask(attr, &none);
    if (!failed) failed = posix_spawnattr_setsigdefault(attr, &all);
    if (!failed) failed = posix_spawnattr_setflags(attr, POSIX_SPAWN_SETSID | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    return failed;
}

#define PW_LOAD(field) BPF_STMT(BPF_LD | BPF_W | BPF_ABS, (field))
#define PW_IF_EQUAL(value, skip) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (value), (skip), 0)
#define PW_RETURN(action) BPF_STMT(BPF_RET | BPF_K, (action))

int pw_guard_agent_from_signals(pid_t agent) {
#ifndef PW_AUDIT_ARCH
    (void)agent;
    errno = ENOSYS;
    return -1;
#else
    const uint32_t self = (uint32_t)agent, group = (uint32_t)(-agent), everyone = (uint32_t)-1;
    /* The jump offsets count instructions to skip; the layout is fixed, and each target is
     * named in the comment of the line that jumps to it. */
    struct sock_filter program[] = {
        /*  0 */ PW_LOAD(offsetof(struct seccomp_data, arch)),
        /*  1 */ PW_IF_EQUAL(PW_AUDIT_ARCH, 1),                   /* → 3 */
        /*  2 */ PW_RETURN(SECCOMP_RET_ERRNO | ENOSYS),
        /*  3 */ PW_LOAD(offsetof(struct seccomp_data, nr)),
        /*  4 */ BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000u, 0, 1), /* x32's table → 5, else → 6 */
        /*  5 */ PW_RETURN(SECCOMP_RET_ERRNO | ENOSYS),
        /*  6 */ PW_IF_EQUAL(__NR_kill, 8),                       /* → 15 */
        /*  7 */ PW_IF_EQUAL(__NR_tkill, 12),                     /* → 20 */
        /*  8 */ PW_IF_EQUAL(__NR_tgkill, 11),                    /* → 20 */
        /*  9 */ PW_IF_EQUAL(__NR_rt_sigqueueinfo, 10),           /* → 20 */
        /* 10 */ PW_IF_EQUAL(__NR_rt_tgsigqueueinfo, 9),          /* → 20 */
        /* 11 */ PW_IF_EQUAL(SYS_pidfd_open, 8),                  /* → 20 */
        /* A pidfd says nothing to a filter of whose it is: with one, nothing is signalled and no
         * descriptor taken (the child holds the agent's, opened before this filter, to learn of
         * the agent's end without waking). */
        /* 12 */ PW_IF_EQUAL(SYS_pidfd_send_signal, 10),          /* → 23 */
        /* 13 */ PW_IF_EQUAL(SYS_pidfd_getfd, 9),                 /* → 23 */
        /* 14 */ PW_RETURN(SECCOMP_RET_ALLOW),
        /* 15 */ PW_LOAD(PW_ARG_LOW(0)),                            /* kill(pid, …) */
        /* 16 */ PW_IF_EQUAL(self, 6),                            /* → 23 */
        /* 17 */ PW_IF_EQUAL(group, 5),                           /* → 23 */
        /* 18 */ PW_IF_EQUAL(everyone, 4),                        /* → 23 */
        /* 19 */ PW_RETURN(SECCOMP_RET_ALLOW),
        /* 20 */ PW_LOAD(PW_ARG_LOW(0)),                            /* the others' pid or tgid */
        /* 21 */ PW_IF_EQUAL(self, 1),                            /* → 23 */
        /* 22 */ PW_RETURN(SECCOMP_RET_ALLOW),
        /* 23 */ PW_RETURN(SECCOMP_RET_ERRNO | EPERM),
    };
    struct sock_fprog filter = { .len = sizeof program / sizeof program[0], .filter = program };
    /* prctl, not seccomp(2): the shipped unit's @system-service allows prctl and would kill the
     * child for seccomp(2). The filter covers this thread and every thread and process it
     * starts; the child installs it first thing, before any thread of its own or the plug-in's. */
    int installed = prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &filter, 0, 0);
    if (installed != 0 && errno == EACCES) {
        /* Without CAP_SYS_ADMIN the kernel asks for no_new_privs first (the shipped unit sets it
         * for the whole service already). */
        if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return -1;
        installed = prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &filter, 0, 0);
    }
    return installed == 0 ? 0 : -1;
#endif
}
