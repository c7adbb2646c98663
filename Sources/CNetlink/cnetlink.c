#include "cnetlink.h"
int pw_cnetlink_placeholder(void) { return 0; }
