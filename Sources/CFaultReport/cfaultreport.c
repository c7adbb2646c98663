#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>
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

/* Everything below runs in a signal handler: only write(2), open(2), read(2), close(2) and
 * plain memory, no stdio and no allocation. */

static void put(const char *text) {
    ssize_t written = write(STDERR_FILENO, text, strlen(text));
    (void)written;
}

static void put_hex(uintptr_t value) {
    char digits[2 + 2 * sizeof value + 1];
    char *end = digits + sizeof digits - 1;
    *end = 0;
    char *p = end;
    do { *--p = "0123456789abcdef"[value & 15]; value >>= 4; } while (value && p > digits + 2);
    *--p = 'x';
    *--p = '0';
    put(p);
}

static uintptr_t parse_hex(const char **cursor) {
    uintptr_t value = 0;
    for (const char *p = *cursor;; p++) {
        char c = *p;
        int digit = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
        if (digit < 0) { *cursor = p; return value; }
        value = value * 16 + (uintptr_t)digit;
    }
}

/* Writes "FILE+0xOFFSET" for `pc` from /proc/self/maps, or "0xPC" when no mapped file holds it:
 * what addr2line or llvm-symbolizer turn into a function and a line. */
static void put_location(uintptr_t pc) {
    static char buffer[65536];
    int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
    size_t length = 0;
    if (fd >= 0) {
        ssize_t got;
        while (length < sizeof buffer - 1 && (got = read(fd, buffer + length, sizeof buffer - 1 - length)) > 0) length += (size_t)got;
        close(fd);
    }
    buffer[length] = 0;
    for (char *line = buffer; *line;) {
        char *next = strchr(line, '\n');
        if (next) *next = 0;
        const char *p = line;
        uintptr_t start = parse_hex(&p);
        if (*p == '-') p++;
        uintptr_t end = parse_hex(&p);
        if (pc >= start && pc < end) {
            /* "start-end perms offset dev inode   path" */
            const char *field = p;
            while (*field == ' ') field++;
            while (*field && *field != ' ') field++;  /* perms */
            while (*field == ' ') field++;
            uintptr_t offset = parse_hex(&field);
            for (int skip = 0; skip < 2; skip++) {       /* dev, inode */
                while (*field == ' ') field++;
                while (*field && *field != ' ') field++;
            }
            while (*field == ' ') field++;
            if (*field == '/') {
                put(field);
                put("+");
                put_hex(pc - start + offset);
                return;
            }
            break;
        }
        if (!next) break;
        line = next + 1;
    }
    put_hex(pc);
}

static uintptr_t program_counter(void *context) {
    if (!context) return 0;
    ucontext_t *uc = context;
#if defined(__x86_64__)
    return (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
#elif defined(__aarch64__)
    return (uintptr_t)uc->uc_mcontext.pc;
#else
    (void)uc;
    return 0;
#endif
}

/* A trap the code asked for — x86's ud2, arm64's brk — is how compiled Swift (and C's
 * __builtin_trap) stops on a failed runtime check. An optimised build prints no message first,
 * so the line this writes (which the agent reports as the child's last stderr) is all there is:
 * where, and what a trap there means. */
static void describe_trap(int sig, void *context) {
    uintptr_t pc = program_counter(context);
    if (pc == 0) return;
    const unsigned char *code = (const unsigned char *)pc;
#if defined(__x86_64__)
    int trap = sig == SIGILL && code[0] == 0x0f && code[1] == 0x0b;
#elif defined(__aarch64__)
    uint32_t word;
    memcpy(&word, code, sizeof word);
    int trap = sig == SIGTRAP && (word & 0xffe0001f) == 0xd4200000;
#else
    int trap = 0;
#endif
    put("pathwatch: ");
    put(sig == SIGILL ? "SIGILL" : "SIGTRAP");
    put(" at ");
    put_location(pc);
    if (trap) {
        put(": a trap instruction, a runtime check that failed (in Swift a precondition, an index out of range, an "
            "arithmetic overflow or a nil unwrapped; a debug build of the plug-in prints the check's message)");
    }
    put("\n");
}

/* Reports, puts back the handler that was there (the runtime's, or the default), and returns:
 * a fault happens again and takes its course; abort() raises again itself. */
static void on_fault(int sig, siginfo_t *info, void *context) {
    (void)info;
    report();
    if (sig == SIGILL || sig == SIGTRAP) describe_trap(sig, context);
    for (unsigned i = 0; i < SIGNAL_COUNT; i++) {
        if (signals[i] == sig) sigaction(sig, &previous[i], NULL);
    }
}

void pw_fault_report_install(int fd) {
    report_fd = fd;
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_sigaction = on_fault;
    action.sa_flags = SA_SIGINFO;
    sigemptyset(&action.sa_mask);
    for (unsigned i = 0; i < SIGNAL_COUNT; i++) sigaction(signals[i], &action, &previous[i]);
    atexit(report);
}

void pw_fault_report_set_instance(unsigned int instance) { current_instance = instance; }
