/* Attacks a plug-in can make on the agent that started its child, for the isolation tests
 * (hostile_probe.c's "attack" mode). Each aims at the agent's process by a route that needs no
 * signal to its pid: another of its threads, its process group, ptrace, its memory, its /proc
 * files, its limits and priorities, a descriptor's owner. Signals are 0 where the route is what is
 * tested, so that an attack that gets through on a build without the guard says so instead of
 * ending the test's agent; the thread kills send SIGKILL, as a hostile plug-in would.
 *
 * "kill_thread" "tkill_thread" "tgkill_thread" "sighup_thread" "kill_agent_group" "ptrace_attach"
 * "ptrace_seize" "proc_mem" "vm_writev" "vm_readv" "prlimit_nofile" "prlimit_cpu" "prlimit_as"
 * "oom_score_adj" "setpriority" "proc_fd_stdout" "sched_setaffinity" "ioprio_set" "f_setown"
 * "f_setown_thread" "kill_everyone" "clone_parent" "clone_pidfd_parent" "pidfd_open" */
#ifndef PATHWATCH_TEST_ATTACKS_H
#define PATHWATCH_TEST_ATTACKS_H
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef CLONE_PIDFD
#define CLONE_PIDFD 0x00001000
#endif
#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif

/* Another thread of `agent` than its main one (the agent always runs several); the main one if
 * none is listed. */
static pid_t other_thread(pid_t agent) {
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/task", (int)agent);
    DIR *tasks = opendir(path);
    pid_t found = agent;
    if (!tasks) return found;
    struct dirent *entry;
    while ((entry = readdir(tasks)) != NULL) {
        pid_t tid = (pid_t)atoi(entry->d_name);
        if (tid > 0 && tid != agent) { found = tid; break; }
    }
    closedir(tasks);
    return found;
}

static void say(char *out, size_t size, const char *name, long result) {
    if (result >= 0) snprintf(out, size, "%s reached", name);
    else if (errno == EPERM || errno == EACCES) snprintf(out, size, "%s refused: %s", name, strerror(errno));
    else snprintf(out, size, "%s failed: %s", name, strerror(errno));
}

static long opened(const char *format, pid_t agent, int flags) {
    char path[64];
    snprintf(path, sizeof path, format, (int)agent);
    int fd = open(path, flags | O_CLOEXEC);
    if (fd >= 0) close(fd);
    return fd;
}

static long same_limit(pid_t agent, int resource) {
    struct rlimit now;
    if (prlimit(agent, resource, NULL, &now) != 0) return -1;
    return prlimit(agent, resource, &now, NULL);
}

static long attack_in_place(const char *name, pid_t agent, char *out, size_t size) {
    pid_t thread = other_thread(agent);
    long r = -1;
    errno = 0;
    if (!strcmp(name, "kill_thread")) r = kill(thread, SIGKILL);
    else if (!strcmp(name, "tkill_thread")) r = syscall(SYS_tkill, thread, SIGKILL);
    else if (!strcmp(name, "tgkill_thread")) r = syscall(SYS_tgkill, agent, thread, SIGKILL);
    else if (!strcmp(name, "sighup_thread")) {
        for (int i = 0; i < 26; i++) if ((r = kill(thread, SIGHUP)) != 0) break;
    }
    else if (!strcmp(name, "kill_agent_group")) r = kill(-getpgid(agent), 0);
    else if (!strcmp(name, "kill_everyone")) r = kill(-1, 0);
    else if (!strcmp(name, "ptrace_attach")) {
        r = ptrace(PTRACE_ATTACH, agent, 0, 0);
        if (r == 0) { int st; waitpid(agent, &st, __WALL); ptrace(PTRACE_DETACH, agent, 0, 0); }
    } else if (!strcmp(name, "ptrace_seize")) {
        r = ptrace(PTRACE_SEIZE, agent, 0, 0);
        if (r == 0) ptrace(PTRACE_DETACH, agent, 0, 0);
    }
    else if (!strcmp(name, "proc_mem")) r = opened("/proc/%d/mem", agent, O_RDWR);
    else if (!strcmp(name, "oom_score_adj")) r = opened("/proc/%d/oom_score_adj", agent, O_WRONLY);
    else if (!strcmp(name, "proc_fd_stdout")) r = opened("/proc/%d/fd/1", agent, O_WRONLY);
    else if (!strcmp(name, "vm_writev") || !strcmp(name, "vm_readv")) {
        /* Address 1 is mapped nowhere: EFAULT says the call reached the agent's memory. */
        char byte = 0;
        struct iovec local = {&byte, 1}, remote = {(void *)1, 1};
        r = name[3] == 'w' ? process_vm_writev(agent, &local, 1, &remote, 1, 0)
                           : process_vm_readv(agent, &local, 1, &remote, 1, 0);
    }
    else if (!strcmp(name, "prlimit_nofile")) r = same_limit(agent, RLIMIT_NOFILE);
    else if (!strcmp(name, "prlimit_cpu")) r = same_limit(agent, RLIMIT_CPU);
    else if (!strcmp(name, "prlimit_as")) r = same_limit(agent, RLIMIT_AS);
    else if (!strcmp(name, "setpriority")) {
        errno = 0;
        int now = getpriority(PRIO_PROCESS, agent);
        r = errno ? -1 : setpriority(PRIO_PROCESS, agent, now);
    } else if (!strcmp(name, "sched_setaffinity")) {
        cpu_set_t set;
        r = sched_getaffinity(agent, sizeof set, &set);
        if (r == 0) r = sched_setaffinity(agent, sizeof set, &set);
    } else if (!strcmp(name, "ioprio_set")) {
        r = syscall(SYS_ioprio_get, 1, agent);
        if (r >= 0) r = syscall(SYS_ioprio_set, 1, agent, r);
    } else if (!strcmp(name, "f_setown") || !strcmp(name, "f_setown_thread")) {
        int pair[2];
        if (pipe(pair) == 0) {
            r = fcntl(pair[0], F_SETOWN, name[8] == '_' ? thread : agent);
            int saved = errno;
            close(pair[0]);
            close(pair[1]);
            errno = saved;
        }
    } else if (!strcmp(name, "clone_parent")) {
        /* A process made the agent's child, outside the plug-in's tree. */
        r = syscall(SYS_clone, CLONE_PARENT | SIGCHLD, 0, 0, 0, 0);
        if (r == 0) _exit(0);
    } else if (!strcmp(name, "clone_pidfd_parent")) {
        /* The same with a pidfd asked of the clone, as the exec plug-in's spawn asks for one: a
         * pidfd of a process outside the tree would be a handle on it. */
        int pidfd = -1;
        r = syscall(SYS_clone, CLONE_PARENT | CLONE_PIDFD | SIGCHLD, 0, &pidfd, 0, 0);
        if (r == 0) _exit(0);
        if (pidfd >= 0) close(pidfd);
    } else if (!strcmp(name, "pidfd_open")) {
        r = syscall(SYS_pidfd_open, agent, 0);
        if (r >= 0) close((int)r);
    } else { snprintf(out, size, "%s: no such attack", name); return 0; }
    say(out, size, name, r);
    return 0;
}

/* The attack from this process, or from a process forked into a session of its own, which sends
 * its verdict back through a pipe. */
static void attack_agent(const char *name, int from_grandchild, char *out, size_t size) {
    pid_t agent = getppid();
    if (!from_grandchild) { attack_in_place(name, agent, out, size); return; }
    int pipe_ends[2];
    if (pipe(pipe_ends) != 0) { snprintf(out, size, "%s: no pipe", name); return; }
    pid_t forked = fork();
    if (forked == 0) {
        char text[256];
        setsid();
        attack_in_place(name, agent, text, sizeof text);
        ssize_t written = write(pipe_ends[1], text, strlen(text));
        (void)written;
        _exit(0);
    }
    close(pipe_ends[1]);
    char text[256] = "";
    ssize_t n = forked > 0 ? read(pipe_ends[0], text, sizeof text - 1) : -1;
    close(pipe_ends[0]);
    if (forked > 0) waitpid(forked, NULL, 0);
    snprintf(out, size, "grandchild: %s", n > 0 ? (text[n] = 0, text) : "said nothing");
}

/* `count` processes that sleep 300 s, every other one in a session of its own; their pids go to
 * `file`, one a line. */
static void fork_sleepers(int count, const char *file) {
    FILE *pids = fopen(file, "w");
    for (int i = 0; i < count; i++) {
        pid_t forked = fork();
        if (forked == 0) {
            if (i % 2) setsid();
            sleep(300);
            _exit(0);
        }
        if (forked > 0 && pids) fprintf(pids, "%d\n", (int)forked);
    }
    if (pids) fclose(pids);
}
#endif
