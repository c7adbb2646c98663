#include <signal.h>
#include "cfaultreport.h"

/* One table for every place that names a signal: the fault handler's line (in the agent and in
 * its children) and the agent's and `plugins --try`'s "plug-in crashed: …", so a fault reads the
 * same wherever it is reported. */
const char *pw_signal_name(int sig) {
    switch (sig) {
    case SIGSEGV: return "SIGSEGV";
    case SIGABRT: return "SIGABRT";
    case SIGBUS: return "SIGBUS";
    case SIGFPE: return "SIGFPE";
    case SIGILL: return "SIGILL";
    case SIGKILL: return "SIGKILL";
    case SIGTERM: return "SIGTERM";
    case SIGTRAP: return "SIGTRAP";
    case SIGXCPU: return "SIGXCPU";
    case SIGPIPE: return "SIGPIPE";
    case SIGSYS: return "SIGSYS";
    default: return "signal";
    }
}
