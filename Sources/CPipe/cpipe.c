/* pipe2(2) is a GNU extension: called from here, in a file of its own feature set. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <unistd.h>
#include "cpipe.h"

int pw_pipe2(int fds[2], int flags) { return pipe2(fds, flags); }
