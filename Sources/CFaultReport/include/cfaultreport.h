/*
 * cfaultreport.h — naming the cause of a plug-in's fatal fault.
 *
 * A plug-in runs in the agent (inline) or in a child process that hosts every probe of its file,
 * each instance on a thread of its own. When it crashes (SIGSEGV, SIGBUS, SIGILL, SIGFPE,
 * SIGTRAP, SIGABRT), the thread it happened on writes one line to stderr before anything else
 * runs (the Swift runtime's backtracer, the core dump): the signal, the plug-in, the call and
 * the probe it was in, and where, as FILE+0xOFFSET (what addr2line turns into a function and a
 * line), and, on a trap instruction, what a trap means: an optimised Swift plug-in stops on a
 * failed runtime check with no message at all.
 *
 * In a child, the thread also writes its instance's number (4 bytes, host order) to a descriptor
 * the agent reads, so the cause names the probe that caused it rather than every call in flight;
 * so it does on exit(), which ends the child as surely.
 *
 * In C because a signal handler may only do async-signal-safe things: thread-local reads,
 * open(2), read(2), write(2), sigaction(2) and raise(3).
 */
#ifndef PATHWATCH_CFAULTREPORT_H
#define PATHWATCH_CFAULTREPORT_H

/* The calls into a plug-in, as a fault names them. */
typedef enum pw_fault_call {
    PW_FAULT_CALL_NONE = 0,
    PW_FAULT_CALL_CREATE,
    PW_FAULT_CALL_SAMPLE,
    PW_FAULT_CALL_EVENT_FD,
    PW_FAULT_CALL_HANDLE_EVENT,
    PW_FAULT_CALL_DESTROY,
    PW_FAULT_CALL_LOAD, /* dlopen (the library's constructors) and its entry point */
} pw_fault_call;

/* Installs the handlers once per process (chaining to those there before, the Swift runtime's
 * among them) and an atexit handler. Calling it again changes nothing. */
void pw_fault_report_install_handlers(void);

/* Installs the handlers, and reports the instance a fault or exit() happened in to `fd` from
 * now on (-1: to no one). */
void pw_fault_report_install(int fd);

/* The instance the calling thread serves (0: none). */
void pw_fault_report_set_instance(unsigned int instance);

/* The calling thread is in `call` of plug-in `plugin` for probe `probe` (empty or NULL when the
 * process does not know it) until pw_fault_report_leave. Both texts are copied (cut when long).
 * Also gives the thread an alternate signal stack, so that a plug-in that overflows its stack
 * is still named. */
void pw_fault_report_enter(const char *plugin, const char *probe, pw_fault_call call);
void pw_fault_report_leave(void);

/* The name of a signal, the one every report of a plug-in's end uses ("SIGSEGV"); "signal" for
 * one without a name of its own here. */
const char *pw_signal_name(int sig);

#endif
