/*
 * cchildprocess.h — two calls for starting and watching plug-in children that Swift cannot
 * reach directly: pidfd_open(2) exists only through the variadic syscall(2), and
 * posix_spawn_file_actions_addclosefrom_np is a GNU extension Swift's Glibc module leaves out.
 */
#ifndef PATHWATCH_CCHILDPROCESS_H
#define PATHWATCH_CCHILDPROCESS_H

#include <spawn.h>
#include <sys/types.h>

/* A descriptor that polls readable once process `pid` has ended (close-on-exec), or -1 with
 * errno set (kernels before 5.3 have no pidfd: the caller then relies on the socket alone).
 * The agent polls it to learn that a child ended even while something the child started still
 * holds the child's end of its socket. */
int pw_pidfd_open(pid_t pid);

/* Adds a spawn action closing every descriptor from `from` up: a child gets the descriptors it
 * is given and nothing else its parent holds or inherited. 0, or an error number. */
int pw_spawn_close_from(posix_spawn_file_actions_t *actions, int from);

/* Sets POSIX_SPAWN_SETSID on `attr`: the child starts a session, and so a process group, of its
 * own. A plug-in that signals "its group" (kill(0, …), killpg(getpgrp(), …)) then reaches only
 * its own child and what that child started, never the agent or another plug-in file's child.
 * The child also starts with no signal blocked and every signal at its default action: a thread
 * of the agent's runtime blocks nearly all signals (libdispatch's workers do), and a child
 * spawned from one would otherwise never act on the SIGTERM its plug-in, or anyone, sends it.
 * 0, or an error number. */
int pw_spawnattr_own_session_default_signals(posix_spawnattr_t *attr);

/* Installs, in the calling thread and all it starts, a seccomp filter that refuses with EPERM the
 * signals a plug-in could aim at the agent that started it: kill(2) to `agent`, to its process
 * group (-agent) or to every process (-1); tkill, tgkill, rt_sigqueueinfo and
 * rt_tgsigqueueinfo to `agent`; and pidfd_open(agent), whose descriptor could signal it. System
 * calls of another architecture's table are refused (ENOSYS), so none can go around the filter.
 * Unprivileged, the filter needs no_new_privs, which is set when the kernel asks for it.
 * 0, or -1 with errno set (a kernel without seccomp filters: the session alone protects). */
int pw_guard_agent_from_signals(pid_t agent);


/* The call guard (call_guard.c, call_ruling.c). What pw_guard_child achieved: */
enum {
    /* Every call naming another process by number goes to the agent, which rules on it. */
    PW_GUARD_SUPERVISED = 0,
    /* No listener could be had (a kernel before 5.5, or seccomp(2) refused): the fixed filter of
     * pw_guard_agent_from_signals is in place instead. */
    PW_GUARD_STATIC = 1,
    /* A listener was installed but could not be handed to the agent: routed calls fail (ENOSYS). */
    PW_GUARD_UNSUPERVISED = 2,
    /* A filter is in place, but capabilities that reach other processes could not be dropped. */
    PW_GUARD_CAPABILITIES_KEPT = 3,
    /* No filter at all (no no_new_privs, no seccomp). */
    PW_GUARD_FAILED = 4,
};

/* In a plug-in child, before any plug-in code: sets no_new_privs; installs the filter that sends
 * every system call naming another process by number to a listener, and hands that listener to
 * the agent over `supervision` (a connected AF_UNIX socket, closed here in every case); falls back
 * to the fixed filter against `agent` when no listener can be had; and, run as root, drops the
 * capabilities that reach other processes. One of the PW_GUARD_ values. */
int pw_guard_child(pid_t agent, int supervision);

/* In the agent: the listener the child sends over `supervision` (close-on-exec), or -1 when it
 * sent none (it falls back, or ended first). Blocks until the child sends or closes. */
int pw_guard_receive_listener(int supervision);

/* A task's (a process's or any of its threads') parent, process group, session and state letter
 * ('Z' for a zombie), from /proc/<id>/stat, read after the command's last ')' (a command may hold
 * ')' and spaces). 0, or -1 when there is no such task. The ruling and the sweep read it alike. */
struct pw_place {
    pid_t parent, group, session;
    char state;
};
int pw_place_of(pid_t id, struct pw_place *out);

/* The tree a child's calls may reach: the child (a session leader) and what it started,
 * including the sessions processes of the tree started (their setsid(2) calls are ruled on too,
 * so that a group whose leader has gone is still known as the tree's). Made with
 * pw_guard_tree_make, ended with pw_guard_tree_free. */
struct pw_guard_tree {
    pid_t child;
    pid_t agent;
    pid_t *sessions;
    int session_count;
};

struct pw_guard_tree pw_guard_tree_make(pid_t child, pid_t agent);
void pw_guard_tree_free(struct pw_guard_tree *tree);

/* A call refused: who made it, which call, its first three arguments as ints. */
struct pw_guard_refusal {
    pid_t caller;
    int call;
    long arguments[3];
};

/* Takes one routed call from `listener` and answers it: 0 when it was let through (or its caller
 * was gone), 1 when it was refused (`refusal` says what), -1 when the listener is unusable. */
int pw_guard_rule_one(int listener, struct pw_guard_tree *tree, struct pw_guard_refusal *refusal);

/* The name of a routed call, for the log. */
const char *pw_guard_call_name(int call);

#endif
