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

#endif
