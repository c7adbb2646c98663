/* The command guard: see cexecspawn.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include "cexecspawn.h"

#ifndef SYS_close_range
#define SYS_close_range 436
#endif

/* One message from the plug-in: op 1 watches the group, 2 forgets it. */
typedef struct {
    int32_t op;
    int32_t pgid;
    int32_t grace_ms;
} pw_guard_message;

/* The groups the guard watches. It runs in a forked copy of a multi-threaded process, where
 * only async-signal-safe calls are allowed, so no malloc: a fixed table (in the library's bss,
 * so a page of it costs memory only once used). */
#define PW_GUARD_GROUPS 16384
static struct {
    pid_t pgid;
    int32_t grace_ms;
} watched[PW_GUARD_GROUPS];

static int64_t now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* SIGTERM to every group, then SIGKILL to each still there after its grace. */
static void end_groups(int count) {
    for (int i = 0; i < count; i++) kill(-watched[i].pgid, SIGTERM);
    int64_t start = now_ms();
    int left = count;
    while (left > 0) {
        struct timespec pause = {0, 20 * 1000000};
        nanosleep(&pause, NULL);
        int64_t elapsed = now_ms() - start;
        left = 0;
        for (int i = 0; i < count; i++) {
            if (watched[i].pgid <= 0) continue;
            if (kill(-watched[i].pgid, 0) != 0) {
                watched[i].pgid = 0;
            } else if (elapsed >= watched[i].grace_ms) {
                kill(-watched[i].pgid, SIGKILL);
                watched[i].pgid = 0;
            } else {
                left++;
            }
        }
    }
}

static _Noreturn void guard_main(int sock) {
    /* Its own session: a terminal's ^C or a signal to the agent's group does not reach it, and
     * neither does a stop signal meant for the agent; it ends when its socket does. */
    setsid();
    struct sigaction ignore = {0};
    ignore.sa_handler = SIG_IGN;
    int ignored[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGUSR1, SIGUSR2};
    for (unsigned i = 0; i < sizeof ignored / sizeof ignored[0]; i++) sigaction(ignored[i], &ignore, NULL);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    prctl(PR_SET_NAME, "pw-exec-guard", 0, 0, 0);
    /* Nothing of the process it was forked from stays open: not its sockets, pipes or the
     * agent's listening socket, which would keep them alive past their owner. */
    if (sock != 0) {
        dup2(sock, 0);
        close(sock);
    }
    if (syscall(SYS_close_range, 1U, ~0U, 0) != 0)
        for (int fd = 1; fd < 65536; fd++) close(fd);
    int count = 0;
    for (;;) {
        pw_guard_message m;
        ssize_t n = recv(0, &m, sizeof m, 0);
        if (n < 0 && errno == EINTR) continue;
        if (n != (ssize_t)sizeof m) break; /* the end of the socket: its owner has ended */
        if (m.op == 1 && count < PW_GUARD_GROUPS && m.pgid > 1) {
            watched[count].pgid = m.pgid;
            watched[count].grace_ms = m.grace_ms;
            count++;
        } else if (m.op == 2) {
            for (int i = 0; i < count; i++)
                if (watched[i].pgid == m.pgid) {
                    watched[i] = watched[--count];
                    break;
                }
        }
    }
    end_groups(count);
    _exit(0);
}

int pw_exec_guard_start(pid_t *guard) {
    int pair[2];
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair) != 0) return -1;
    pid_t pid = fork();
    if (pid < 0) {
        int saved = errno;
        close(pair[0]);
        close(pair[1]);
        errno = saved;
        return -1;
    }
    if (pid == 0) {
        close(pair[0]);
        guard_main(pair[1]);
    }
    close(pair[1]);
    *guard = pid;
    return pair[0];
}

static int guard_send(int fd, int32_t op, pid_t pgid, int32_t grace_ms) {
    pw_guard_message m = {op, (int32_t)pgid, grace_ms};
    ssize_t n;
    /* Never blocking the sample: a guard that stopped reading loses a message, not a thread. */
    do n = send(fd, &m, sizeof m, MSG_NOSIGNAL | MSG_DONTWAIT);
    while (n < 0 && errno == EINTR);
    if (n == (ssize_t)sizeof m) return 0;
    return n < 0 ? errno : EMSGSIZE;
}

int pw_exec_guard_watch(int fd, pid_t pgid, int grace_ms) { return guard_send(fd, 1, pgid, grace_ms); }

int pw_exec_guard_forget(int fd, pid_t pgid) { return guard_send(fd, 2, pgid, 0); }
