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
    char digits[24]; /* a 64-bit value in decimal, 20 digits, and the NUL */
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

static const char *skip_field(const char *p) {
    while (*p == ' ') p++;
    while (*p && *p != ' ') p++;
    return p;
}

/* The path and file offset of the mapping "start-end perms offset dev inode   path" holding
 * `pc`, or NULL when the line is another mapping's or maps no file. */
static const char *mapped_file(const char *entry, uintptr_t pc, uintptr_t *offset) {
    const char *p = entry;
    uintptr_t start = parse_hex(&p);
    if (*p == '-') p++;
    uintptr_t end = parse_hex(&p);
    if (pc < start || pc >= end) return NULL;
    p = skip_field(p); /* perms */
    while (*p == ' ') p++;
    *offset = pc - start + parse_hex(&p);
    p = skip_field(skip_field(p)); /* dev, inode */
    while (*p == ' ') p++;
    return *p == '/' ? p : NULL;
}

/* Puts "FILE+0xOFFSET" for `pc` from /proc/self/maps (dladdr is not async-signal-safe), or "0xPC"
 * when no mapped file holds it or another thread is reading the maps at the same moment. The maps
 * are read a buffer at a time, line by line: an agent's run to well over 64 KiB, and a plug-in
 * loaded late may be listed anywhere in them. */
static void put_location(line_t *line, uintptr_t pc) {
    static char buffer[16384];
    static atomic_flag busy = ATOMIC_FLAG_INIT;
    if (atomic_flag_test_and_set(&busy)) { put_number(line, pc, 16); return; }
    const char *file = NULL;
    uintptr_t offset = 0;
    int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
    size_t held = 0;
    ssize_t got = 1;
    while (fd >= 0 && !file && got > 0) {
        got = read(fd, buffer + held, sizeof buffer - 1 - held);
        if (got > 0) held += (size_t)got;
        buffer[held] = 0;
        char *entry = buffer;
        for (char *next; !file && (next = strchr(entry, '\n'));  entry = next + 1) {
            *next = 0;
            file = mapped_file(entry, pc, &offset);
        }
        if (!file && got <= 0 && *entry) file = mapped_file(entry, pc, &offset);  /* a last line without its newline */
        if (file) break;
        held = strlen(entry);
        /* A line longer than the buffer cannot be a whole entry: dropped. */
        if (held == sizeof buffer - 1) held = 0;
        memmove(buffer, entry, held);
    }
    if (file) {
        put(line, file);
        put(line, "+");
        put_number(line, offset, 16);
    } else {
        put_number(line, pc, 16);
    }
    if (fd >= 0) close(fd);
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
