#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cfaultreport.h"

static __thread unsigned int current_instance;
static int report_fd = -1;
static const int signals[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP, SIGABRT};
#define SIGNAL_COUNT (sizeof signals / sizeof signals[0])
static struct sigaction previous[SIGNAL_COUNT];

static void report(void) {
    unsigned int instance = current_instance;
    if (instance != 0 && report_fd >= 0) {
        ssize_t written = write(report_fd, &instance, sizeof instance);
        (void)written;
    }
}

/* Reports, puts back the handler that was there (the runtime's, or the default), and returns:
 * a fault happens again and takes its course; abort() raises again itself. */
static void on_fault(int sig) {
    report();
    for (unsigned i = 0; i < SIGNAL_COUNT; i++) {
        if (signals[i] == sig) sigaction(sig, &previous[i], NULL);
    }
}

void pw_fault_report_install(int fd) {
    report_fd = fd;
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = on_fault;
    sigemptyset(&action.sa_mask);
    for (unsigned i = 0; i < SIGNAL_COUNT; i++) sigaction(signals[i], &action, &previous[i]);
    atexit(report);
}

void pw_fault_report_set_instance(unsigned int instance) { current_instance = instance; }
