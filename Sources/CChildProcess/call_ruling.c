/* The agent's side of the call guard: it takes the calls a plug-in child's filter sends it
 * (call_guard.c) and lets one go on only when every process it names is the child or a process
 * of the child's tree; anything else (the agent, any of its threads, its group, its shell, another
 * plug-in's child, every process at once) is refused with EPERM. Ruled here, by the kernel's own
 * account of the target in /proc, not by pid lists: an agent thread started later, a group the
 * agent joined, a pid the report never named are all outside the tree. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "cchildprocess.h"
#include "syscall_numbers.h"

#ifndef SECCOMP_USER_NOTIF_FLAG_CONTINUE
#define SECCOMP_USER_NOTIF_FLAG_CONTINUE (1UL << 0)
#endif

int pw_guard_receive_listener(int supervision) {
    char byte = 0;
    struct iovec data = {.iov_base = &byte, .iov_len = 1};
    union {
        struct cmsghdr header;
        char space[CMSG_SPACE(sizeof(int))];
    } control;
    memset(&control, 0, sizeof control);
    struct msghdr message = {
        .msg_iov = &data, .msg_iovlen = 1, .msg_control = control.space, .msg_controllen = sizeof control.space};
    ssize_t got;
    do { got = recvmsg(supervision, &message, MSG_CMSG_CLOEXEC); } while (got < 0 && errno == EINTR);
    if (got != 1) return -1;
    struct cmsghdr *header = CMSG_FIRSTHDR(&message);
    if (!header || header->cmsg_level != SOL_SOCKET || header->cmsg_type != SCM_RIGHTS
        || header->cmsg_len != CMSG_LEN(sizeof(int)))
        return -1;
    int fd;
    memcpy(&fd, CMSG_DATA(header), sizeof fd);
    return fd;
}


/* The start of /proc/<id>/<file> as a string in `text`; its length, or -1. */
static ssize_t read_proc(pid_t id, const char *file, char *text, size_t size) {
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/%s", (int)id, file);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    ssize_t n = read(fd, text, size - 1);
    close(fd);
    if (n <= 0) return -1;
    text[n] = 0;
    return n;
}

int pw_place_of(pid_t id, struct pw_place *out) {
    char text[512];
    if (read_proc(id, "stat", text, sizeof text) < 0) return -1;
    char *close_paren = strrchr(text, ')');
    if (!close_paren) return -1;
    char state;
    int parent, group, session;
    if (sscanf(close_paren + 1, " %c %d %d %d", &state, &parent, &group, &session) != 4) return -1;
    *out = (struct pw_place){parent, group, session, state};
    return 0;
}

/* The thread group (process) a task id belongs to; -1 when there is none. */
static pid_t process_of(pid_t id) {
    char text[1024];
    if (read_proc(id, "status", text, sizeof text) < 0) return -1;
    char *line = strstr(text, "\nTgid:");
    return line ? (pid_t)strtol(line + 6, NULL, 10) : -1;
}

/* Sessions the tree started, noted as their setsid(2) calls are ruled on. A session's number is
 * not given to another process while any member lives; a full list is pruned of sessions nobody
 * is in any more. */
enum { PW_GUARD_SESSIONS_MAX = 4096 };

struct pw_guard_tree pw_guard_tree_make(pid_t child, pid_t agent) {
    return (struct pw_guard_tree){child, agent, NULL, 0};
}

void pw_guard_tree_free(struct pw_guard_tree *tree) {
    free(tree->sessions);
    tree->sessions = NULL;
    tree->session_count = 0;
}

static int session_of_tree(pid_t session, const struct pw_guard_tree *tree) {
    if (session == tree->child) return 1;
    for (int i = 0; i < tree->session_count; i++) {
        if (tree->sessions[i] == session) return 1;
    }
    return 0;
}

static int session_lives(pid_t session) {
    DIR *proc = opendir("/proc");
    if (!proc) return 1;
    int found = 0;
    struct dirent *entry;
    struct pw_place place;
    while (!found && (entry = readdir(proc)) != NULL) {
        char *end;
        long id = strtol(entry->d_name, &end, 10);
        if (*end == 0 && id > 0 && pw_place_of((pid_t)id, &place) == 0 && place.session == session) found = 1;
    }
    closedir(proc);
    return found;
}

static void note_session(pid_t session, struct pw_guard_tree *tree) {
    if (session <= 0 || session == tree->agent || session_of_tree(session, tree)) return;
    if (tree->session_count == PW_GUARD_SESSIONS_MAX) {
        int kept = 0;
        for (int i = 0; i < tree->session_count; i++) {
            if (session_lives(tree->sessions[i])) tree->sessions[kept++] = tree->sessions[i];
        }
        tree->session_count = kept;
        if (kept == PW_GUARD_SESSIONS_MAX) return;
    }
    if (!tree->sessions) {
        tree->sessions = malloc(sizeof(pid_t) * PW_GUARD_SESSIONS_MAX);
        if (!tree->sessions) return;
    }
    tree->sessions[tree->session_count++] = session;
}

/* Whether task `id` is the child or in its tree: in the child's session or one the tree started
 * (every member of a session was started inside it), or below the child by parent links. */
static int in_tree(pid_t id, const struct pw_guard_tree *tree) {
    if (id <= 0) return 0;
    if (id == tree->child) return 1;
    pid_t process = process_of(id);
    if (process <= 0 || process == tree->agent) return 0;
    if (process == tree->child) return 1;
    struct pw_place place;
    if (pw_place_of(process, &place) != 0) return 0;
    for (int depth = 0; depth < 4096; depth++) {
        if (session_of_tree(place.session, tree)) return 1;
        pid_t parent = place.parent;
        if (parent == tree->child) return 1;
        if (parent <= 1 || parent == tree->agent || pw_place_of(parent, &place) != 0) return 0;
    }
    return 0;
}

/* Whether process group `group` lies in the tree: a group never spans sessions, and a session
 * holding one process of the tree holds only processes of the tree, so one member decides. */
static int group_in_tree(pid_t group, const struct pw_guard_tree *tree) {
    if (group <= 0 || group == getpgrp()) return 0;
    struct pw_place place;
    if (pw_place_of(group, &place) == 0 && place.group == group) return in_tree(group, tree);
    /* No member at all, the usual case (a command reaped, then its group killed for what it
     * left): the kernel answers ESRCH to the call, nothing to protect. Asked of the kernel at
     * once, not by reading every process's stat, which cost more than the command it ended. */
    if (kill(-group, 0) != 0 && errno == ESRCH) return 1;
    /* The leader is gone: any member will do. */
    DIR *proc = opendir("/proc");
    if (!proc) return 0;
    int verdict = -1;
    struct dirent *entry;
    while (verdict < 0 && (entry = readdir(proc)) != NULL) {
        char *end;
        long id = strtol(entry->d_name, &end, 10);
        if (*end != 0 || id <= 0) continue;
        if (pw_place_of((pid_t)id, &place) == 0 && place.group == group) verdict = in_tree((pid_t)id, tree);
    }
    closedir(proc);
    /* No member: the kernel answers ESRCH, nothing to protect. */
    return verdict < 0 ? 1 : verdict;
}

/* A pid argument of kill(2)'s kind: a process above 0, a group below -1, every process at -1,
 * the caller's own group at 0. */
static int target_in_tree(int target, const struct pw_guard_tree *tree) {
    if (target > 0) return in_tree(target, tree);
    if (target == 0) return 1;
    if (target == -1) return 0;
    return group_in_tree(-target, tree);
}

static int allowed(const struct seccomp_notif *call, struct pw_guard_tree *tree) {
    const int a0 = (int)call->data.args[0], a1 = (int)call->data.args[1], a2 = (int)call->data.args[2];
    switch (call->data.nr) {
    case __NR_kill: return target_in_tree(a0, tree);
    case __NR_tkill:
    case __NR_rt_sigqueueinfo:
    case __NR_process_vm_readv:
    case __NR_process_vm_writev:
    case __NR_sched_setaffinity:
    case __NR_sched_setparam:
    case __NR_sched_setscheduler:
    case __NR_sched_setattr:
    case __NR_migrate_pages:
    case __NR_move_pages:
    case __NR_get_robust_list:
    case SYS_pidfd_open: return a0 == 0 || in_tree(a0, tree);
    case __NR_prlimit64: return a0 == 0 || in_tree(a0, tree);
    case __NR_tgkill:
    case __NR_rt_tgsigqueueinfo: return in_tree(a0, tree) && in_tree(a1, tree);
    case __NR_perf_event_open: return a1 == 0 || in_tree(a1, tree);
    case __NR_kcmp: return in_tree(a0, tree) && in_tree(a1, tree);
    case __NR_ptrace:
        /* PTRACE_TRACEME makes the caller's parent its tracer: from the child that is the agent. */
        if (call->data.args[0] == PTRACE_TRACEME) return (pid_t)call->pid != tree->child;
        return in_tree(a1, tree);
    case __NR_setpriority:
        if (a0 == PRIO_PROCESS) return a1 == 0 || in_tree(a1, tree);
        if (a0 == PRIO_PGRP) return a1 == 0 || group_in_tree(a1, tree);
        return 0; /* PRIO_USER: every process of a user, the agent's among them */
    case __NR_ioprio_set:
        if (a0 == IOPRIO_WHO_PROCESS) return a1 == 0 || in_tree(a1, tree);
        if (a0 == IOPRIO_WHO_PGRP) return a1 == 0 || group_in_tree(a1, tree);
        return 0;
    case __NR_fcntl: return target_in_tree(a2, tree);
    case __NR_setsid:
        /* The new session's number is the caller's process id (a thread starts one for its
         * process). Should the call fail, the number names no session, or one of the tree's. */
        note_session(process_of((pid_t)call->pid), tree);
        return 1;
    default: return 0;
    }
}

int pw_guard_rule_one(int listener, struct pw_guard_tree *tree, struct pw_guard_refusal *refusal) {
    struct seccomp_notif call;
    memset(&call, 0, sizeof call);
    if (ioctl(listener, SECCOMP_IOCTL_NOTIF_RECV, &call) != 0) {
        /* ENOENT: the caller died before it was read. Anything else: the listener is unusable. */
        return errno == EINTR || errno == ENOENT ? 0 : -1;
    }
    struct seccomp_notif_resp answer;
    memset(&answer, 0, sizeof answer);
    answer.id = call.id;
    int verdict = allowed(&call, tree);
    if (verdict) {
        answer.flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
    } else {
        answer.error = -EPERM;
        refusal->caller = (pid_t)call.pid;
        refusal->call = (int)call.data.nr;
        for (int i = 0; i < 3; i++) refusal->arguments[i] = (long)(int)call.data.args[i];
    }
    /* ENOENT here: the caller was killed meanwhile; nothing is owed. */
    (void)ioctl(listener, SECCOMP_IOCTL_NOTIF_SEND, &answer);
    return verdict ? 0 : 1;
}

const char *pw_guard_call_name(int call) {
    switch (call) {
    case __NR_kill: return "kill";
    case __NR_tkill: return "tkill";
    case __NR_tgkill: return "tgkill";
    case __NR_rt_sigqueueinfo: return "rt_sigqueueinfo";
    case __NR_rt_tgsigqueueinfo: return "rt_tgsigqueueinfo";
    case __NR_ptrace: return "ptrace";
    case __NR_process_vm_readv: return "process_vm_readv";
    case __NR_process_vm_writev: return "process_vm_writev";
    case __NR_prlimit64: return "prlimit";
    case __NR_setpriority: return "setpriority";
    case __NR_ioprio_set: return "ioprio_set";
    case __NR_sched_setaffinity: return "sched_setaffinity";
    case __NR_sched_setparam: return "sched_setparam";
    case __NR_sched_setscheduler: return "sched_setscheduler";
    case __NR_sched_setattr: return "sched_setattr";
    case __NR_migrate_pages: return "migrate_pages";
    case __NR_move_pages: return "move_pages";
    case __NR_get_robust_list: return "get_robust_list";
    case __NR_perf_event_open: return "perf_event_open";
    case __NR_kcmp: return "kcmp";
    case __NR_fcntl: return "fcntl(F_SETOWN)";
    case SYS_pidfd_open: return "pidfd_open";
    default: return "a system call";
    }
}
