#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include "faultinternal.h"

/* Thread-local: each thread calls into at most one plug-in at a time, and the handler runs on the
 * thread that faulted. Copies rather than pointers: the texts need not outlive the call. */
static __thread pw_fault_record current;

/* Room for the handlers that run on it: this file's, then the runtime's backtracer. */
#define ALTERNATE_STACK_BYTES (256 * 1024)
static __thread int stack_checked;
static pthread_key_t stack_key;
static pthread_once_t stack_key_once = PTHREAD_ONCE_INIT;

static void release_stack(void *stack) {
    stack_t off;
    memset(&off, 0, sizeof off);
    off.ss_flags = SS_DISABLE;
    sigaltstack(&off, NULL);
    munmap(stack, ALTERNATE_STACK_BYTES);
}

static void make_stack_key(void) { pthread_key_create(&stack_key, release_stack); }

/* A handler on the faulting thread's own stack cannot run when that stack is what overflowed: the
 * thread gets a stack of its own for signals, once, unless it has one already (the runtime's),
 * freed when the thread ends. */
static void ensure_alternate_stack(void) {
    if (stack_checked) return;
    stack_checked = 1;
    stack_t existing;
    if (sigaltstack(NULL, &existing) == 0 && !(existing.ss_flags & SS_DISABLE)) return;
    void *stack = mmap(NULL, ALTERNATE_STACK_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
    if (stack == MAP_FAILED) return;
    stack_t mine;
    memset(&mine, 0, sizeof mine);
    mine.ss_sp = stack;
    mine.ss_size = ALTERNATE_STACK_BYTES;
    if (sigaltstack(&mine, NULL) != 0) {
        munmap(stack, ALTERNATE_STACK_BYTES);
        return;
    }
    pthread_once(&stack_key_once, make_stack_key);
    pthread_setspecific(stack_key, stack);
}

static void copy(char *to, size_t size, const char *text) {
    size_t length = text ? strnlen(text, size - 1) : 0;
    if (length) memcpy(to, text, length);
    to[length] = 0;
}

void pw_fault_report_enter(const char *plugin, const char *probe, pw_fault_call call) {
    ensure_alternate_stack();
    copy(current.plugin, sizeof current.plugin, plugin);
    copy(current.probe, sizeof current.probe, probe);
    current.call = call;
}

void pw_fault_report_leave(void) { current.call = PW_FAULT_CALL_NONE; }

const pw_fault_record *pw_fault_current(void) { return &current; }

const char *pw_fault_call_name(pw_fault_call call) {
    switch (call) {
    case PW_FAULT_CALL_CREATE: return "create";
    case PW_FAULT_CALL_SAMPLE: return "sample";
    case PW_FAULT_CALL_EVENT_FD: return "event_fd";
    case PW_FAULT_CALL_HANDLE_EVENT: return "handle_event";
    case PW_FAULT_CALL_DESTROY: return "destroy";
    case PW_FAULT_CALL_LOAD: return "load";
    default: return NULL;
    }
}
