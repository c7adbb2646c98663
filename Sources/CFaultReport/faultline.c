#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <ucontext.h>
#include <unistd.h>
#include "faultinternal.h"

/* Everything here runs in a signal handler: only open(2), read(2), write(2), close(2) and plain
 * memory, no stdio and no allocation. The line is built whole and written at once, so that what
 * other threads write does not land inside it. */

typedef struct { char text[1024]; size_t length; } line_t;

static void put(line_t *line, const char *text) {
    size_t length = strlen(text);
    size_t room = sizeof line->text - 1 - line->length;
    if (length > room) length = room;
    memcpy(line->text + line->length, text, length);
    line->length += length;
}

static void put_number(line_t *line, uintptr_t value, unsigned base) {
    char digits[2 * sizeof value + 1];
    char *p = digits + sizeof digits - 1;
    *p = 0;
    do { *--p = "0123456789abcdef"[value % base]; value /= base; } while (value && p > digits);
    if (base == 16) put(line, "0x");
    put(line, p);
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

/* The path and file offset of the mapping "start-end perms offset dev inode   path" holding
 * `pc`, or NULL when the line is another mapping's or maps no file. */
static const char *mapped_file(char *entry, uintptr_t pc, uintptr_t *offset) {
    const char *p = entry;
    uintptr_t start = parse_hex(&p);
    if (*p == '-') p++;
    uintptr_t end = parse_hex(&p);
    if (pc < start || pc >= end) return NULL;
    for (int skip = 0; skip < 1; skip++) {  /* perms */
        while (*p == ' ') p++;
        while (*p && *p != ' ') p++;
    }
    while (*p == ' ') p++;
    *offset = pc - start + parse_hex(&p);
    for (int skip = 0; skip < 2; skip++) {  /* dev, inode */
        while (*p == ' ') p++;
        while (*p && *p != ' ') p++;
    }
    while (*p == ' ') p++;
    return *p == '/' ? p : NULL;
}

/* Puts "FILE+0xOFFSET" for `pc` from /proc/self/maps (dladdr is not async-signal-safe), or "0xPC"
 * when no mapped file holds it or another thread is reading the maps at the same moment. */
static void put_location(line_t *line, uintptr_t pc) {
    static char buffer[65536];
    static atomic_flag busy = ATOMIC_FLAG_INIT;
    if (atomic_flag_test_and_set(&busy)) { put_number(line, pc, 16); return; }
    int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
    size_t length = 0;
    if (fd >= 0) {
        ssize_t got;
        while (length < sizeof buffer - 1 && (got = read(fd, buffer + length, sizeof buffer - 1 - length)) > 0)
            length += (size_t)got;
        close(fd);
    }
    buffer[length] = 0;
    const char *file = NULL;
    uintptr_t offset = 0;
    for (char *entry = buffer; *entry && !file;) {
        char *next = strchr(entry, '\n');
        if (next) *next = 0;
        file = mapped_file(entry, pc, &offset);
        entry = next ? next + 1 : entry + strlen(entry);
    }
    if (file) {
        put(line, file);
        put(line, "+");
        put_number(line, offset, 16);
    } else {
        put_number(line, pc, 16);
    }
    atomic_flag_clear(&busy);
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

/* A trap the code asked for (x86's ud2, arm64's brk) is how compiled Swift, and C's
 * __builtin_trap, stops on a failed runtime check; an optimised build prints no message first.
 * Only read for SIGILL and SIGTRAP, where the kernel stopped at an instruction it could fetch. */
static int is_trap_instruction(int sig, uintptr_t pc) {
    const unsigned char *code = (const unsigned char *)pc;
#if defined(__x86_64__)
    return sig == SIGILL && code[0] == 0x0f && code[1] == 0x0b;
#elif defined(__aarch64__)
    uint32_t word;
    memcpy(&word, code, sizeof word);
    return sig == SIGTRAP && (word & 0xffe0001f) == 0xd4200000;
#else
    (void)sig;
    (void)code;
    return 0;
#endif
}

/* "pathwatch: SIGSEGV (signal 11) in plug-in NAME during CALL of probe ID at FILE+0xOFFSET",
 * the parts the thread does not know left out. */
void pw_fault_describe(int sig, void *context) {
    line_t line = {.length = 0};
    put(&line, "pathwatch: ");
    put(&line, pw_signal_name(sig));
    put(&line, " (signal ");
    put_number(&line, (uintptr_t)sig, 10);
    put(&line, ")");
    const pw_fault_record *record = pw_fault_current();
    const char *call = pw_fault_call_name(record->call);
    if (call) {
        if (record->plugin[0]) { put(&line, " in plug-in "); put(&line, record->plugin); }
        put(&line, " during ");
        put(&line, call);
        if (record->probe[0]) { put(&line, " of probe "); put(&line, record->probe); }
    }
    uintptr_t pc = program_counter(context);
    if (pc) {
        put(&line, " at ");
        put_location(&line, pc);
        if ((sig == SIGILL || sig == SIGTRAP) && is_trap_instruction(sig, pc)) {
            put(&line, ": a trap instruction, a runtime check that failed (in Swift a precondition, an index out of "
                       "range, an overflow or a nil unwrapped; a debug build prints its message)");
        }
    }
    line.text[line.length++] = '\n';  /* put leaves room for it */
    ssize_t written = write(STDERR_FILENO, line.text, line.length);
    (void)written;
}
