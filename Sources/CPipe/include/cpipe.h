/*
 * cpipe.h — pipe2(2) for Swift, which Swift's Glibc module does not declare (it is a GNU
 * extension). The agent needs its flags set as the pipe is made: a plug-in child spawned by
 * another thread between pipe(2) and fcntl(2) would inherit both ends.
 */
#ifndef PATHWATCH_CPIPE_H
#define PATHWATCH_CPIPE_H

/* pipe2(fds, flags): 0, or -1 with errno set. */
int pw_pipe2(int fds[2], int flags);

#endif
