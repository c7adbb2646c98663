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
 * 0, or an error number. */
int pw_spawnattr_new_session(posix_spawnattr_t *attr);

/* Installs, in the calling thread and all it starts, a seccomp filter that refuses with EPERM the
 * signals a plug-in could aim at the agent that started it: kill(2) to `agent`, to its process
 * group (-agent) or to every process (-1); tkill, tgkill, rt_sigqueueinfo and
 * rt_tgsigqueueinfo to `agent`; and pidfd_open(agent), whose descriptor could signal it. System
 * calls of another architecture's table are refused (ENOSYS), so none can go around the filter.
 * Unprivileged, the filter needs no_new_privs, which is set when the kernel asks for it.
 * 0, or -1 with errno set (a kernel without seccomp filters: the session alone protects). */
int pw_guard_agent_from_signals(pid_t agent);

#endif
