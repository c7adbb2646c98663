/* prctl(2) wrappers for Swift (cprocesscontrol.h). */
#include <sys/prctl.h>
#include "cprocesscontrol.h"

int pw_make_undumpable(void) { return prctl(PR_SET_DUMPABLE, 0, 0, 0, 0); }

int pw_is_dumpable(void) { return prctl(PR_GET_DUMPABLE, 0, 0, 0, 0) == 1; }

int pw_set_thread_name(const char *name) { return prctl(PR_SET_NAME, name, 0, 0, 0); }
