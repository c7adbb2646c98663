/*
 * cexecspawn.h — starting one check command with posix_spawn, as Swift cannot say it: the
 * new-session flag and the closefrom action are GNU extensions Swift's Glibc module leaves out,
 * and pidfd_open(2) is reachable only through the variadic syscall(2). The agent starts its own
 * children with one helper of its own (ProcessSpawn); this plug-in cannot use it, since a plug-in
 * links the SDK and never the agent's modules, so it keeps this shim.
 */
#ifndef PATHWATCH_CEXECSPAWN_H
#define PATHWATCH_CEXECSPAWN_H

#include <sys/types.h>

/* What pw_exec_spawn hands back: the command's pid (also its process group and session id),
 * the read ends of its stdout and stderr pipes (non-blocking, close-on-exec) and a pidfd that
 * polls readable once the command has ended (-1 on a kernel without pidfd: poll the pipes and
 * waitpid(WNOHANG) instead). */
typedef struct {
    pid_t pid;
    int stdout_fd;
    int stderr_fd;
    int pid_fd;
} pw_exec_child;

/* Starts `argv[0]` (a path, or a name looked up in `envp`'s PATH — posix_spawnp reads the
 * caller's PATH, so the lookup is done here on the command's own) with exactly `envp`, stdin from
 * /dev/null, stdout and stderr to fresh pipes and no other descriptor (closefrom 3), in a new
 * session and so a process group of its own, with the default signal dispositions and an empty
 * signal mask. 0, or an error number (ENOENT when argv[0] was not found in PATH). */
int pw_exec_spawn(char *const argv[], char *const envp[], pw_exec_child *child);

/* "KILL" for SIGKILL (sigabbrev_np, a GNU extension); "" for a number with no name. */
const char *pw_exec_signal_name(int signal);

/* The command guard: a process forked from this one that ends the process groups it is told to
 * watch once this process has ended, however it ended (the agent stopping while a sample's
 * commands run, a plug-in child killed), since a command in a session of its own outlives its
 * parent otherwise. It holds one end of a socket pair; when every holder of the other end is
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
