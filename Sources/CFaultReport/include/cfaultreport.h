/*
 * cfaultreport.h — which instance a plug-in child's fatal fault or exit() happened in.
 *
 * One child hosts every probe of a plug-in file, each instance on a thread of its own. When the
 * plug-in crashes (SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP, SIGABRT) or calls exit(), the
 * thread it happened on writes its instance's number (4 bytes, host order) to a descriptor the
 * agent reads, so the cause names the probe that caused it rather than every call in flight.
 * On a trap (SIGILL, SIGTRAP) it also writes to stderr where it happened, as FILE+0xOFFSET, and
 * whether it was a trap instruction: an optimised Swift plug-in stops on a failed runtime check
 * with no message at all, and the agent reports the child's last stderr lines with the crash.
 * In C because a signal handler may only do async-signal-safe things: a thread-local read,
 * open(2), read(2) and write(2).
 */
#ifndef PATHWATCH_CFAULTREPORT_H
#define PATHWATCH_CFAULTREPORT_H

/* Reports to `fd` from now on: installs the handlers (chaining to those there before) and an
 * atexit handler. */
void pw_fault_report_install(int fd);

/* The instance the calling thread serves (0: none). */
void pw_fault_report_set_instance(unsigned int instance);

/* The name of a signal, the one every report of a plug-in's end uses ("SIGSEGV"); "signal" for
 * one without a name of its own here. */
const char *pw_signal_name(int sig);

#endif
