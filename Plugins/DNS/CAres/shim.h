#include <ares.h>

/* ARES_GETSOCK_READABLE and _WRITABLE are function-like macros, which Swift cannot import. */
static inline int pw_ares_sock_readable(int bits, int index) { return ARES_GETSOCK_READABLE(bits, index) != 0; }
static inline int pw_ares_sock_writable(int bits, int index) { return ARES_GETSOCK_WRITABLE(bits, index) != 0; }
