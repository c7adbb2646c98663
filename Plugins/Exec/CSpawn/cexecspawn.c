/* posix_spawn of one check command: see cexecspawn.h for what the child gets. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "cexecspawn.h"

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
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

    posix_spawn_file_actions_t actions;
    posix_spawnattr_t attr;
    posix_spawn_file_actions_init(&actions);
    posix_spawnattr_init(&attr);
    sigset_t none, all;
    sigemptyset(&none);
    sigfillset(&all);
    /* A thread of the agent's may block signals, and the plug-in child may ignore some (SIGPIPE):
     * a check starts with the defaults, so that SIGTERM ends it and SIGPIPE stops a writer. */
    posix_spawnattr_setsigmask(&attr, &none);
    posix_spawnattr_setsigdefault(&attr, &all);
    rc = posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSID | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    if (!rc) rc = posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    if (!rc) rc = posix_spawn_file_actions_adddup2(&actions, out[1], 1);
    if (!rc) rc = posix_spawn_file_actions_adddup2(&actions, err[1], 2);
    /* Only its own three: nothing the agent or another plug-in holds reaches a check. */
    if (!rc) rc = posix_spawn_file_actions_addclosefrom_np(&actions, 3);
    pid_t pid = -1;
    if (!rc) rc = posix_spawn(&pid, path, &actions, &attr, argv, envp);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
    close(out[1]);
    close(err[1]);
    if (rc) { close(out[0]); close(err[0]); return rc; }
    child->pid = pid;
    child->stdout_fd = out[0];
    child->stderr_fd = err[0];
    child->pid_fd = (int)syscall(SYS_pidfd_open, pid, 0);
    if (child->pid_fd >= 0) fcntl(child->pid_fd, F_SETFD, FD_CLOEXEC);
    return 0;
}

const char *pw_exec_signal_name(int signal) {
    const char *name = sigabbrev_np(signal);
    return name ? name : "";
}
