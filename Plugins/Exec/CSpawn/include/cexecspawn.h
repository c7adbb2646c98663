/*
 * cexecspawn.h — starting one check command, as Swift cannot say it: a clone(2) with
 * CLONE_VM | CLONE_VFORK | CLONE_PIDFD (what glibc's posix_spawn does inside, plus the pidfd),
 * whose child runs only async-signal-safe C, and close_range(2), reachable only through the
 * variadic syscall(2). The agent starts its own children with one helper of its own
 * (ProcessSpawn); this plug-in cannot use it, since a plug-in links the SDK and never the
 * agent's modules, so it keeps this shim.
 */
#ifndef PATHWATCH_CEXECSPAWN_H
#define PATHWATCH_CEXECSPAWN_H

#include <sys/types.h>

/* What pw_exec_spawn hands back: the command's pid (also its process group's id), the read ends
 * of its stdout and stderr pipes (non-blocking, close-on-exec) and a pidfd of it from the clone
 * (close-on-exec) that polls readable once the command has ended (-1 on a kernel before 5.2:
 * poll the pipes and waitpid(WNOHANG) instead). */
typedef struct {
    pid_t pid;
    int stdout_fd;
    int stderr_fd;
    int pid_fd;
} pw_exec_child;

/* Starts `argv[0]` (a path, or a name looked up in `envp`'s PATH — posix_spawnp reads the
 * caller's PATH, so the lookup is done here on the command's own) with exactly `envp`, stdin from
 * /dev/null, stdout and stderr to fresh pipes and no other descriptor (closefrom 3), in a process
 * group of its own, with the default signal dispositions and an empty signal mask. The group is
 * in this process's session when that has no terminal (a plug-in child, a service), in a new
 * session of its own otherwise. 0, or an error number (ENOENT when argv[0] was not found in
 * PATH; the errno of the step that failed in the child, execve's among them). */
int pw_exec_spawn(char *const argv[], char *const envp[], pw_exec_child *child);

/* 1 when some process (a zombie included) is still in the process group `pgid`, 0 when none is:
 * the kernel's own answer, without sending a signal. A group with no member gains none (its
 * id names no group until the number is given to a new process), so "none" stays true. */
int pw_exec_group_has_members(pid_t pgid);

/* "KILL" for SIGKILL (sigabbrev_np, a GNU extension); "" for a number with no name. */
const char *pw_exec_signal_name(int signal);

/* The command guard: a process forked from this one that ends the process groups it is told to
 * watch once this process has ended, however it ended (the agent stopping while a sample's
 * commands run, a plug-in child killed), since a command in a process group of its own outlives
 * its parent otherwise. It holds one end of a socket pair; when every holder of the other end is
 * gone (this process has exited: the end is close-on-exec) it sends SIGTERM to every group
 * still watched, SIGKILL to each after its grace, and exits. It has its own session, ignores
 * the stop signals, and keeps no other descriptor of this process open.
 * pw_exec_guard_start forks it and returns this process's end (close-on-exec) and its pid in
 * `guard`, or -1 with errno. watch and forget return 0 or an error number: EPIPE or
 * ECONNRESET when the guard is gone, EAGAIN when its socket is full (the message is lost). */
int pw_exec_guard_start(pid_t *guard);
int pw_exec_guard_watch(int fd, pid_t pgid, int grace_ms);
int pw_exec_guard_forget(int fd, pid_t pgid);

#endif
