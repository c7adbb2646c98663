/*
 * cexecspawn.h — starting one check command with posix_spawn, as Swift cannot say it: the
 * new-session flag and the closefrom action are GNU extensions Swift's Glibc module leaves out,
 * and pidfd_open(2) is reachable only through the variadic syscall(2).
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

#endif
