/* The child's side of the call guard: a seccomp filter that sends every system call naming
 * another process by number to the agent, which rules on it by the target's place in the process
 * tree (call_ruling.c). A filter cannot know which pids are the agent's threads, its group or its
 * shell; the agent can. Calls aimed at the caller itself (pid 0, or the child's own pid) are let
 * through by the filter without asking. Calls that take a pidfd are refused whole: a descriptor
 * number can be made to name another process between a ruling and the call. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include "cchildprocess.h"
#include "syscall_numbers.h"

#ifndef SECCOMP_FILTER_FLAG_NEW_LISTENER
#define SECCOMP_FILTER_FLAG_NEW_LISTENER (1UL << 3)
#endif
#ifndef SECCOMP_RET_USER_NOTIF
#define SECCOMP_RET_USER_NOTIF 0x7fc00000U
#endif
#ifndef SECCOMP_GET_ACTION_AVAIL
#define SECCOMP_GET_ACTION_AVAIL 2
#endif

#define PW_NOTIFY SECCOMP_RET_USER_NOTIF
#define PW_ALLOW SECCOMP_RET_ALLOW
#define PW_REFUSE (SECCOMP_RET_ERRNO | EPERM)

#ifdef PW_AUDIT_ARCH
/* The program, emitted rule by rule. Every rule starts with the system call's number in the
 * accumulator (loaded once, at the top); a rule for another call jumps over the rule's body, and
 * every body ends in a return, so the accumulator is never changed for the rules after it. */
struct program {
    struct sock_filter code[256];
    unsigned short length;
};

static void emit(struct program *p, struct sock_filter s) { p->code[p->length++] = s; }

static void load(struct program *p, uint32_t offset) {
    emit(p, (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offset));
}

static void jump_if(struct program *p, uint32_t value, uint8_t when_true, uint8_t when_false) {
    emit(p, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, value, when_true, when_false));
}

static void give(struct program *p, uint32_t action) {
    emit(p, (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, action));
}

/* nr → action, whatever the arguments. */
static void rule_always(struct program *p, int nr, uint32_t action) {
    jump_if(p, (uint32_t)nr, 0, 1);
    give(p, action);
}

/* nr → allowed when argument `arg` is one of `allowed` (0 or the child's own pid: the caller
 * aims at itself), otherwise `action`. Body: load, one test per value, action, allow. */
static void rule_argument(struct program *p, int nr, int arg, const uint32_t *allowed, uint8_t count,
                          uint32_t action) {
    jump_if(p, (uint32_t)nr, 0, (uint8_t)(count + 3));
    load(p, PW_ARG_LOW(arg));
    for (uint8_t i = 0; i < count; i++) jump_if(p, allowed[i], (uint8_t)(count - i), 0);
    give(p, action);
    give(p, PW_ALLOW);
}

/* setpriority(which, who, …) and ioprio_set(which, who, …): allowed without asking only for the
 * caller itself (`which` is the call's "process" kind and `who` 0 or the child); asked otherwise. */
static void rule_which_who(struct program *p, int nr, uint32_t process_kind, uint32_t child) {
    jump_if(p, (uint32_t)nr, 0, 7);
    load(p, PW_ARG_LOW(0));
    jump_if(p, process_kind, 0, 3); /* another kind (a group, a user) → ask */
    load(p, PW_ARG_LOW(1));
    jump_if(p, 0, 2, 0);            /* → allow */
    jump_if(p, child, 1, 0);        /* → allow */
    give(p, PW_NOTIFY);
    give(p, PW_ALLOW);
}

/* fcntl: F_SETOWN names a process or group that signals (SIGIO, or any signal F_SETSIG picks)
 * go to when the descriptor is ready: asked unless it names the caller. F_SETOWN_EX reads its
 * target from memory the caller can change after a ruling: refused. */
static void rule_fcntl(struct program *p, uint32_t child) {
    jump_if(p, (uint32_t)__NR_fcntl, 0, 9);
    load(p, PW_ARG_LOW(1));
    jump_if(p, F_SETOWN_EX, 6, 0);  /* → refuse */
    jump_if(p, F_SETOWN, 0, 4);     /* another command → allow */
    load(p, PW_ARG_LOW(2));
    jump_if(p, 0, 2, 0);            /* → allow */
    jump_if(p, child, 1, 0);        /* → allow */
    give(p, PW_NOTIFY);
    give(p, PW_ALLOW);
    give(p, PW_REFUSE);
}

/* ioctl's FIOSETOWN and SIOCSPGRP are F_SETOWN through memory: refused. */
static void rule_ioctl(struct program *p) {
    jump_if(p, (uint32_t)__NR_ioctl, 0, 5);
    load(p, PW_ARG_LOW(1));
    jump_if(p, FIOSETOWN, 2, 0);
    jump_if(p, SIOCSPGRP, 1, 0);
    give(p, PW_ALLOW);
    give(p, PW_REFUSE);
}

/* clone with CLONE_PARENT would make a process the agent's child, outside the plug-in's tree;
 * clone3 hides its flags in memory, so it answers ENOSYS and the C library falls back to clone. */
static void rule_clone(struct program *p) {
    jump_if(p, (uint32_t)__NR_clone, 0, 4);
    load(p, PW_ARG_LOW(0));
    emit(p, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, CLONE_PARENT, 1, 0));
    give(p, PW_ALLOW);
    give(p, PW_REFUSE);
    rule_always(p, SYS_clone3, SECCOMP_RET_ERRNO | ENOSYS);
}

static void build(struct program *p, uint32_t child) {
    const uint32_t self_or_zero[] = {0, child}, self[] = {child};
    p->length = 0;
    load(p, offsetof(struct seccomp_data, arch));
    jump_if(p, PW_AUDIT_ARCH, 1, 0);
    give(p, SECCOMP_RET_ERRNO | ENOSYS);
    load(p, offsetof(struct seccomp_data, nr));
    /* x32's table on x86_64: refused, so no call goes around the rules below by another number. */
    emit(p, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000u, 0, 1));
    give(p, SECCOMP_RET_ERRNO | ENOSYS);
    /* Signals. kill(0, …) is the caller's own group, inside the plug-in's session. */
    rule_argument(p, __NR_kill, 0, self_or_zero, 2, PW_NOTIFY);
    rule_argument(p, __NR_tkill, 0, self, 1, PW_NOTIFY);
    rule_argument(p, __NR_tgkill, 0, self, 1, PW_NOTIFY);
    rule_argument(p, __NR_rt_sigqueueinfo, 0, self, 1, PW_NOTIFY);
    rule_argument(p, __NR_rt_tgsigqueueinfo, 0, self, 1, PW_NOTIFY);
    rule_fcntl(p, child);
    rule_ioctl(p);
    /* Tracing, another process's memory, limits, scheduling, pages. */
    rule_always(p, __NR_ptrace, PW_NOTIFY);
    rule_argument(p, __NR_process_vm_readv, 0, self, 1, PW_NOTIFY);
    rule_argument(p, __NR_process_vm_writev, 0, self, 1, PW_NOTIFY);
    rule_argument(p, __NR_prlimit64, 0, self_or_zero, 2, PW_NOTIFY);
    rule_which_who(p, __NR_setpriority, PRIO_PROCESS, child);
    rule_which_who(p, __NR_ioprio_set, IOPRIO_WHO_PROCESS, child);
    rule_argument(p, __NR_sched_setaffinity, 0, self_or_zero, 2, PW_NOTIFY);
    rule_argument(p, __NR_sched_setparam, 0, self_or_zero, 2, PW_NOTIFY);
    rule_argument(p, __NR_sched_setscheduler, 0, self_or_zero, 2, PW_NOTIFY);
    rule_argument(p, __NR_sched_setattr, 0, self_or_zero, 2, PW_NOTIFY);
    rule_argument(p, __NR_migrate_pages, 0, self_or_zero, 2, PW_NOTIFY);
    rule_argument(p, __NR_move_pages, 0, self_or_zero, 2, PW_NOTIFY);
    rule_argument(p, __NR_get_robust_list, 0, self_or_zero, 2, PW_NOTIFY);
    rule_argument(p, __NR_perf_event_open, 1, self_or_zero, 2, PW_NOTIFY);
    rule_always(p, __NR_kcmp, PW_NOTIFY);
    rule_argument(p, SYS_pidfd_open, 0, self, 1, PW_NOTIFY);
    /* A pidfd (or a /proc/<pid> directory, which pidfd_send_signal also takes) says nothing to a
     * filter, and its number can be made to name another process after a ruling. */
    rule_always(p, SYS_pidfd_send_signal, PW_REFUSE);
    rule_always(p, SYS_pidfd_getfd, PW_REFUSE);
    rule_always(p, SYS_process_madvise, PW_REFUSE);
    rule_always(p, SYS_process_mrelease, PW_REFUSE);
    rule_clone(p);
    /* A session a process of the tree starts is the tree's: the agent notes it. */
    rule_always(p, __NR_setsid, PW_NOTIFY);
    give(p, PW_ALLOW);
}

/* Whether this process may install a filter that sends calls to a listener. A service's own
 * system-call filter may kill the process that calls seccomp(2) (systemd's SystemCallFilter
 * without it), so the question is asked in a process forked to ask it. */
static int listener_available(void) {
    pid_t asker = fork();
    if (asker < 0) return 0;
    if (asker == 0) {
        uint32_t action = SECCOMP_RET_USER_NOTIF;
        _exit(syscall(SYS_seccomp, SECCOMP_GET_ACTION_AVAIL, 0, &action) == 0 ? 0 : 1);
    }
    int status = 0;
    while (waitpid(asker, &status, 0) < 0) {
        if (errno != EINTR) return 0;
    }
    return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

static int send_descriptor(int socket, int fd) {
    char byte = 'L';
    struct iovec data = {.iov_base = &byte, .iov_len = 1};
    union {
        struct cmsghdr header;
        char space[CMSG_SPACE(sizeof(int))];
    } control;
    memset(&control, 0, sizeof control);
    struct msghdr message = {
        .msg_iov = &data, .msg_iovlen = 1, .msg_control = control.space, .msg_controllen = sizeof control.space};
    struct cmsghdr *header = CMSG_FIRSTHDR(&message);
    header->cmsg_level = SOL_SOCKET;
    header->cmsg_type = SCM_RIGHTS;
    header->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(header), &fd, sizeof(int));
    ssize_t sent;
    do { sent = sendmsg(socket, &message, MSG_NOSIGNAL); } while (sent < 0 && errno == EINTR);
    return sent == 1 ? 0 : -1;
}
#endif

/* The capabilities that reach another process, or the kernel under every process. A plug-in
 * child of an agent run as root keeps the others (raw sockets, network administration, reading
 * any file) and loses these, so a root child cannot ptrace, open /proc/<agent>/mem, change the
 * agent's limits or priority, or load code into the kernel. */
static const int reaching[] = {
    CAP_SYS_PTRACE, CAP_KILL, CAP_SYS_RESOURCE, CAP_SYS_NICE, CAP_SYS_ADMIN, CAP_SYS_MODULE,
    CAP_SYS_RAWIO, CAP_SYS_BOOT, CAP_SETPCAP, CAP_MKNOD, CAP_SYS_TIME,
#ifdef CAP_BPF
    CAP_BPF, CAP_PERFMON, CAP_CHECKPOINT_RESTORE,
#endif
};

static int drop_reaching_capabilities(void) {
    struct __user_cap_header_struct header = {.version = _LINUX_CAPABILITY_VERSION_3, .pid = 0};
    struct __user_cap_data_struct data[2];
    if (syscall(SYS_capget, &header, data) != 0) return -1;
    int any = 0;
    for (size_t i = 0; i < sizeof reaching / sizeof reaching[0]; i++) {
        int cap = reaching[i];
        if ((data[cap / 32].permitted & (1u << (cap % 32))) != 0) any = 1;
    }
    if (!any) return 0;
    /* The bounding set first (dropping needs CAP_SETPCAP, which goes last): nothing the child
     * executes can gain them back. */
    for (size_t i = 0; i < sizeof reaching / sizeof reaching[0]; i++) {
        if (prctl(PR_CAPBSET_DROP, reaching[i], 0, 0, 0) != 0 && errno != EINVAL) return -1;
    }
    for (size_t i = 0; i < sizeof reaching / sizeof reaching[0]; i++) {
        int cap = reaching[i];
        uint32_t bit = 1u << (cap % 32);
        data[cap / 32].effective &= ~bit;
        data[cap / 32].permitted &= ~bit;
        data[cap / 32].inheritable &= ~bit;
    }
    return syscall(SYS_capset, &header, data) == 0 ? 0 : -1;
}

int pw_guard_child(pid_t agent, int supervision) {
    int result = PW_GUARD_STATIC;
    /* Without CAP_SYS_ADMIN the kernel wants no_new_privs before any filter; with it, a program
     * the plug-in executes still gains nothing from a set-user-ID bit or file capabilities. */
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) result = PW_GUARD_FAILED;
#ifdef PW_AUDIT_ARCH
    if (result != PW_GUARD_FAILED && supervision >= 0 && listener_available()) {
        struct program program;
        build(&program, (uint32_t)getpid());
        struct sock_fprog filter = {.len = program.length, .filter = program.code};
        int listener = (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER, &filter);
        if (listener >= 0) {
            int sent = send_descriptor(supervision, listener);
            close(listener);
            /* Installed but not handed over, every routed call would fail with ENOSYS: no worse
             * for the agent, and said. */
            result = sent == 0 ? PW_GUARD_SUPERVISED : PW_GUARD_UNSUPERVISED;
        }
    }
#else
    (void)agent;
#endif
    if (supervision >= 0) close(supervision);
    if (result == PW_GUARD_STATIC && pw_guard_agent_from_signals(agent) != 0) result = PW_GUARD_FAILED;
    if (drop_reaching_capabilities() != 0 && result != PW_GUARD_FAILED) result = PW_GUARD_CAPABILITIES_KEPT;
    return result;
}
