#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "faultinternal.h"

static __thread unsigned int current_instance;
static int report_fd = -1;
static const int signals[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP, SIGABRT};
#define SIGNAL_COUNT (sizeof signals / sizeof signals[0])
static struct sigaction previous[SIGNAL_COUNT];
static pthread_once_t installed = PTHREAD_ONCE_INIT;

static void report(void) {
    unsigned int instance = current_instance;
    if (instance != 0 && report_fd >= 0) {
        ssize_t written = write(report_fd, &instance, sizeof instance);
        (void)written;
    }
}

/* Names the fault, puts back the handler that was there (the runtime's backtracer, or the
 * default) and hands the signal to it: a fault at an instruction happens again when this
 * returns; a signal that was sent (abort's, raise's, kill's) or a trap the processor steps past
 * (x86's int3) is raised again, and delivered once this handler is done. */
static void on_fault(int sig, siginfo_t *info, void *context) {
    report();
    pw_fault_describe(sig, context);
    for (unsigned i = 0; i < SIGNAL_COUNT; i++) {
        if (signals[i] == sig) sigaction(sig, &previous[i], NULL);
    }
    if (info == NULL || info->si_code <= 0 || sig == SIGTRAP) raise(sig);
}

/* On the alternate stack when the thread has one (pw_fault_report_enter gives one to every
 * thread that calls a plug-in): a stack overflow is still named. */
static void install_handlers(void) {
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_sigaction = on_fault;
    action.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&action.sa_mask);
    for (unsigned i = 0; i < SIGNAL_COUNT; i++) sigaction(signals[i], &action, &previous[i]);
    atexit(report);
}

void pw_fault_report_install_handlers(void) { pthread_once(&installed, install_handlers); }

void pw_fault_report_install(int fd) {
    report_fd = fd;
    pw_fault_report_install_handlers();
}

void pw_fault_report_set_instance(unsigned int instance) { current_instance = instance; }
