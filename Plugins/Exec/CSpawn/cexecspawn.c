/* Starting one check command: see cexecspawn.h for what the child gets. glibc's posix_spawn does
 * the same with clone(CLONE_VM | CLONE_VFORK); it is done here so the pidfd comes with the clone
 * (CLONE_PIDFD), where under a plug-in child's call guard a pidfd_open(2) after the spawn would
 * be a call the agent rules on, and so the command's process group can be made without a new
 * session (setsid(2) is ruled on too: see pick_session). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include "cexecspawn.h"

#ifndef CLONE_PIDFD
#define CLONE_PIDFD 0x00001000
#endif
#ifndef SYS_close_range
#define SYS_close_range 436
#endif

/* The command's own PATH (from `envp`), not the agent's: the lookup posix_spawnp would do. */
static const char *path_of(char *const envp[]) {
    for (char *const *e = envp; *e; e++)
        if (strncmp(*e, "PATH=", 5) == 0) return *e + 5;
    return "/usr/bin:/bin";
}

/* argv[0] resolved into `out` (a name with no slash is looked up in PATH, first executable
 * wins). 0 or ENOENT/EACCES. */
static int resolve(const char *name, char *const envp[], char out[PATH_MAX]) {
    if (strchr(name, '/')) {
        if (snprintf(out, PATH_MAX, "%s", name) >= PATH_MAX) return ENAMETOOLONG;
        return 0;
    }
    const char *p = path_of(envp);
    int seen_denied = 0;
    while (1) {
        const char *end = strchr(p, ':');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len > 0 && snprintf(out, PATH_MAX, "%.*s/%s", (int)len, p, name) < PATH_MAX) {
            if (access(out, X_OK) == 0) return 0;
            if (errno == EACCES) seen_denied = 1;
        }
        if (!end) break;
        p = end + 1;
    }
    return seen_denied ? EACCES : ENOENT;
}

/* Whether this process has a controlling terminal: field 7 (tty_nr) of /proc/self/stat. */
static int has_terminal(void) {
    char text[512];
    int fd = open("/proc/self/stat", O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 1;
    ssize_t n = read(fd, text, sizeof text - 1);
    close(fd);
    if (n <= 0) return 1;
    text[n] = 0;
    char *close_paren = strrchr(text, ')');
    int tty = 1;
    if (!close_paren || sscanf(close_paren + 1, " %*c %*d %*d %*d %d", &tty) != 1) return 1;
    return tty != 0;
}

/* A session of its own for each command only where this process's session has a terminal (the
 * agent run inline from a shell): there a command in a mere group of that session would be
 * stopped by reading the terminal and could take it over. Without one (a plug-in child, which
 * leads a session of its own; the agent under a service manager) a process group of its own
 * (setpgid) gives the command all a session would — the group its kills reach, nothing of a
 * terminal — and keeps it in the session the agent already knows as the plug-in's tree, so no
 * setsid(2) is sent to the agent's call guard. Asked once: neither process takes a terminal
 * later. */
static int pick_session(void) {
    static atomic_int known; /* 0: not asked yet, 1: a group, 2: a session */
    int kind = atomic_load_explicit(&known, memory_order_relaxed);
    if (kind == 0) {
        kind = has_terminal() ? 2 : 1;
        atomic_store_explicit(&known, kind, memory_order_relaxed);
    }
    return kind == 2;
}

/* What the clone's child needs; it shares this memory with the parent until it executes. */
struct start {
    const char *path;
    char *const *argv;
    char *const *envp;
    int out, err;
    int own_session;
    volatile int error; /* set by the child when a step fails before the command runs */
};

/* Closes every descriptor from 3 up: close_range(2), or one by one on a kernel before 5.9. */
static void close_from_three(void) {
    if (syscall(SYS_close_range, 3U, ~0U, 0) == 0) return;
    struct rlimit limit;
    int top = getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur < 65536 ? (int)limit.rlim_cur : 65536;
    for (int fd = 3; fd < top; fd++) close(fd);
}

/* The kernel's signal set (64 signals on every architecture Linux runs this on), set or cleared
 * with rt_sigprocmask(2) itself: glibc's wrappers keep its two internal signals out of a mask,
 * and one of its handlers must not run in the child either. */
static void mask_all_signals(int all, uint64_t *old) {
    uint64_t set = all ? ~(uint64_t)0 : 0;
    syscall(SYS_rt_sigprocmask, SIG_SETMASK, &set, old, sizeof set);
}

/* The clone's child: shares the parent's memory (the parent waits in clone until it executes
 * or exits), so it calls only async-signal-safe functions and writes nothing but `error`. All
 * signals are blocked on entry; every disposition is put back to the default before they are
 * let through, so none of the parent's handlers can run on this stack, and an ignored signal
 * (SIGPIPE) is not left ignored for the command. */
static int child_main(void *raw) {
    struct start *s = raw;
    /* The kernel's struct sigaction, all zero: SIG_DFL, no flags, an empty mask (whatever the
     * architecture's order of its fields). rt_sigaction(2) directly, as glibc's wrapper refuses
     * its internal signals. */
    const uint64_t fallback[8] = {0};
    for (int sig = 1; sig < NSIG; sig++) {
        if (sig != SIGKILL && sig != SIGSTOP) syscall(SYS_rt_sigaction, sig, fallback, NULL, sizeof(uint64_t));
    }
    int rc = s->own_session ? (setsid() < 0 ? -1 : 0) : setpgid(0, 0);
    int null_fd = rc == 0 ? open("/dev/null", O_RDONLY) : -1;
    if (null_fd < 0 || (null_fd != 0 && dup2(null_fd, 0) < 0) || dup2(s->out, 1) < 0 || dup2(s->err, 2) < 0) {
        s->error = errno ? errno : EINVAL;
        _exit(127);
    }
    /* Only its own three: nothing the agent or another plug-in holds reaches a check. */
    close_from_three();
    mask_all_signals(0, NULL);
    execve(s->path, s->argv, s->envp);
    s->error = errno;
    _exit(127);
}

/* clone(CLONE_VM | CLONE_VFORK) with a pidfd, on a stack in this frame: the parent's thread does
 * not run until the child has executed or exited, and the child touches no memory but this
 * stack and `start`. The pid, or -1 with errno. */
static pid_t clone_child(struct start *s, int *pid_fd) {
    /* Enough for the child's calls (the C library's wrappers; execve's work is the kernel's). */
    _Alignas(16) char stack[32768];
    uint64_t old;
    /* No handler of the parent's may run in the child before it has put them back. */
    mask_all_signals(1, &old);
    const int flags = CLONE_VM | CLONE_VFORK | SIGCHLD;
    *pid_fd = -1;
    pid_t pid = clone(child_main, stack + sizeof stack, flags | CLONE_PIDFD, s, pid_fd);
    /* A kernel before 5.2 has no CLONE_PIDFD: the command runs, and is watched by polling. */
    if (pid < 0 && errno == EINVAL) {
        *pid_fd = -1;
        pid = clone(child_main, stack + sizeof stack, flags, s);
    }
    int saved = errno;
    syscall(SYS_rt_sigprocmask, SIG_SETMASK, &old, NULL, sizeof old);
    errno = saved;
    return pid;
}

int pw_exec_spawn(char *const argv[], char *const envp[], pw_exec_child *child) {
    char path[PATH_MAX];
    int rc = resolve(argv[0], envp, path);
    if (rc) return rc;
    int out[2] = {-1, -1}, err[2] = {-1, -1};
    if (pipe2(out, O_CLOEXEC | O_NONBLOCK) < 0) return errno;
    if (pipe2(err, O_CLOEXEC | O_NONBLOCK) < 0) { rc = errno; close(out[0]); close(out[1]); return rc; }
    /* The command's ends block, as every program expects of its stdout. */
    fcntl(out[1], F_SETFL, 0);
    fcntl(err[1], F_SETFL, 0);

    struct start s = {path, argv, envp, out[1], err[1], pick_session(), 0};
    int pid_fd = -1;
    pid_t pid = clone_child(&s, &pid_fd);
    rc = pid < 0 ? errno : s.error;
    close(out[1]);
    close(err[1]);
    if (pid > 0 && rc) {
        /* It failed before the command ran, and has exited: reaped here, never seen. */
        if (pid_fd >= 0) close(pid_fd);
        while (waitpid(pid, NULL, 0) < 0 && errno == EINTR) {}
    }
    if (rc) { close(out[0]); close(err[0]); return rc; }
    child->pid = pid;
    child->stdout_fd = out[0];
    child->stderr_fd = err[0];
    /* A pidfd from clone is close-on-exec already. */
    child->pid_fd = pid_fd;
    return 0;
}

const char *pw_exec_signal_name(int signal) {
    const char *name = sigabbrev_np(signal);
    return name ? name : "";
}
