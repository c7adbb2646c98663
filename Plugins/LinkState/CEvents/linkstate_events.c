/* CLinkStateEvents is a header-only module; SwiftPM needs one source file to build a C target. */
#include "linkstate_events.h"
