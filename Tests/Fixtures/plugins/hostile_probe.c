/* A plug-in that misbehaves in the ways a plug-in author's mistakes do, for the isolation tests.
 * Built with cc against the ABI header alone.
 *
 * Compile-time knobs: -DHOSTILE_NAME='"name"' (default "hostile"); -DEXIT_IN_CONSTRUCTOR (the
 * library's constructor calls exit(4): loading it at all ends the process that loads it);
 * -DTALK_IN_CONSTRUCTOR (the constructor prints a line to stdout and returns);
 * -DCRASH_IN_CONSTRUCTOR (the constructor writes through a null pointer).
 *
 * Config: {"do": WHAT, "count_file": PATH, "say": TEXT}; WHAT is one of
 *   "segfault"       every sample writes through a null pointer
 *   "say_then_segfault" every sample writes "note: started", then "say" as a line to stderr
 *                    (unbuffered, as a runtime's fatal error is), then writes through a null pointer
 *   "abort"          every sample calls abort()
 *   "trap"           every sample executes a trap instruction (__builtin_trap: x86's ud2), as an
 *                    optimised Swift build does on a failed runtime check, printing nothing
 *   "overflow"       every sample recurses until its thread's stack overflows (SIGSEGV)
 *   "exit_in_create" create calls exit(3)
 *   "segfault_in_create" create writes through a null pointer
 *   "spin"           every sample spins forever
 *   "block"          every sample sleeps forever
 *   "leak"           every sample leaks 10 MB it has written to (and dies when malloc fails)
 *   "flood"          every sample emits 100,000 observations
 *   "chatter"        prints to stdout and stderr in every call, then reports one ok check
 *   "crash_first"    crashes (SIGSEGV) in its first 3 samples, counted across processes in
 *                    count_file, then reports one ok check
 *   "fork_crash_first" in its first sample (counted in count_file) forks a process that writes
 *                    its pid to count_file.forked and sleeps 120 s holding every descriptor it
 *                    inherited, then crashes (SIGSEGV); later samples report one ok check
 *   "fork_cut_crash_first" as fork_crash_first, but before crashing writes the start of a frame
 *                    to the agent (its length and instance, none of its body) on the child's
 *                    socket: a sibling's reply cut off by the crash
 *   "kill_group"     every sample sends SIGTERM to its own process group: kill(0, SIGTERM)
 *   "killpg_own"     every sample calls killpg(getpgrp(), SIGTERM)
 *   "raise_own"      every sample calls raise(SIGTERM): a signal to the calling thread alone
 *   "kill_parent_group" every sample sends SIGTERM to its parent's group, kill(-getppid(), …),
 *                    then reports one ok check whose message says what kill returned
 *   "kill_parent"    the same with kill(getppid(), SIGTERM)
 *   "pidfd_parent"   every sample sends SIGTERM through every pidfd it finds among its process's
 *                    descriptors (the child holds one of the agent's) and through one it opens
 *                    of its parent, then reports one ok check saying what the calls returned
 *   "attack"         every sample aims the call named by "attack" at the agent (the child's
 *                    parent) or one of its other threads, from the child or, with "from":
 *                    "grandchild", from a process it forks into a session of its own; reports
 *                    one ok check saying "ATTACK refused: …", "ATTACK failed: …" or "ATTACK
 *                    reached" (attacks.h lists them)
 *   "fork_many"      the first sample forks "count" processes that sleep 300 s, every other one
 *                    in a session of its own, and writes their pids to count_file, one a line
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sys/syscall.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "pathwatch_probe.h"
#include "attacks.h"

#ifndef HOSTILE_NAME
#define HOSTILE_NAME "hostile"
#endif

#ifdef EXIT_IN_CONSTRUCTOR
__attribute__((constructor)) static void leave_at_once(void) {
    printf("constructor talking on stdout\n");
    exit(4);
}
#endif

#ifdef CRASH_IN_CONSTRUCTOR
/* The pointer itself volatile: known to be NULL, the store would be dropped as undefined, and the
 * constructor with it. */
static int *volatile nowhere_at_all = NULL;
__attribute__((constructor)) static void crash_at_once(void) { *nowhere_at_all = 1; }
#endif

#ifdef TALK_IN_CONSTRUCTOR
__attribute__((constructor)) static void talk_at_once(void) {
    printf("constructor talking on stdout\n");
    fflush(stdout);
}
#endif

typedef struct { char what[32]; char count_file[512]; char say[256]; char attack[32]; char from[16]; char count[16]; int forked; } probe;

static void field(const char *json, size_t len, const char *name, char *out, size_t size) {
    char text[1024] = {0}, pattern[64];
    memcpy(text, json, len < sizeof text - 1 ? len : sizeof text - 1);
    snprintf(pattern, sizeof pattern, "\"%s\": \"", name);
    char *at = strstr(text, pattern);
    if (!at) { snprintf(pattern, sizeof pattern, "\"%s\":\"", name); at = strstr(text, pattern); }
    if (!at) return;
    at += strlen(pattern);
    char *end = strchr(at, '"');
    if (end) snprintf(out, size, "%.*s", (int)(end - at), at);
}

static int is(const probe *p, const char *what) { return strcmp(p->what, what) == 0; }

static int hp_create(const char *json, size_t len, void **out, pw_error *e) {
    probe *p = calloc(1, sizeof *p);
    if (!p) return PW_ERR;
    field(json, len, "do", p->what, sizeof p->what);
    field(json, len, "count_file", p->count_file, sizeof p->count_file);
    field(json, len, "say", p->say, sizeof p->say);
    field(json, len, "attack", p->attack, sizeof p->attack);
    field(json, len, "from", p->from, sizeof p->from);
    field(json, len, "count", p->count, sizeof p->count);
    if (is(p, "exit_in_create")) exit(3);
    if (is(p, "segfault_in_create")) { volatile int *nowhere = NULL; *nowhere = 1; }
    if (is(p, "chatter")) { printf("create talking on stdout\n"); fprintf(stderr, "create talking on stderr\n"); fflush(stdout); }
    (void)e;
    *out = p;
    return PW_OK;
}

static int ok_check(const pw_emitter *em, const char *message) {
    pw_observation o = {sizeof o, "c", PW_STATE_OK, message, NULL, 0, NULL, 0};
    return em->emit(em->context, &o);
}

static long bump(const char *path) {
    long n = 0;
    FILE *f = fopen(path, "r");
    if (f) { if (fscanf(f, "%ld", &n) != 1) n = 0; fclose(f); }
    f = fopen(path, "w");
    if (f) { fprintf(f, "%ld\n", n + 1); fclose(f); }
    return n + 1;
}

/* Not a tail call (it uses its frame after the call) and its frame is volatile: no optimiser turns
 * it into a loop. The end it never reaches is read at run time, so the compiler does not refuse
 * the recursion as infinite. */
static volatile int never = -1;
static int recurse(int depth) {
    if (depth == never) return 0;
    volatile char frame[4096];
    frame[0] = (char)depth;
    return recurse(depth + 1) + frame[0];
}

static int hp_sample(void *instance, const pw_emitter *em, pw_error *e) {
    probe *p = instance;
    (void)e;
    if (is(p, "segfault")) { volatile int *nowhere = NULL; *nowhere = 1; }
    if (is(p, "say_then_segfault")) {
        fprintf(stderr, "note: started\n%s\n", p->say);
        volatile int *nowhere = NULL; *nowhere = 1;
    }
    if (is(p, "abort")) abort();
    if (is(p, "trap")) __builtin_trap();
    if (is(p, "overflow")) return recurse(0);
    if (is(p, "spin")) { volatile unsigned long n = 0; for (;;) n++; }
    if (is(p, "block")) { for (;;) sleep(1000); }
    if (is(p, "leak")) {
        char *block = malloc(10 * 1000 * 1000);
        memset(block, 1, 10 * 1000 * 1000);  /* NULL once the limit is reached: SIGSEGV */
    }
    if (is(p, "flood")) {
        char key[32];
        for (int i = 0; i < 100000; i++) {
            snprintf(key, sizeof key, "k%d", i);
            pw_observation o = {sizeof o, key, PW_STATE_OK, "flood", NULL, 0, NULL, 0};
            em->emit(em->context, &o);
        }
        return PW_OK;
    }
    if (is(p, "kill_group")) kill(0, SIGTERM);
    if (is(p, "killpg_own")) killpg(getpgrp(), SIGTERM);
    if (is(p, "raise_own")) raise(SIGTERM);
    if (is(p, "kill_parent_group") || is(p, "kill_parent")) {
        int group = is(p, "kill_parent_group");
        pid_t target = group ? -getppid() : getppid();
        char message[128];
        if (kill(target, SIGTERM) == 0) snprintf(message, sizeof message, "%s sent", group ? "kill(-parent)" : "kill(parent)");
        else snprintf(message, sizeof message, "%s refused: %s", group ? "kill(-parent)" : "kill(parent)", strerror(errno));
        return ok_check(em, message) == PW_OK ? PW_OK : PW_ERR;
    }
    if (is(p, "pidfd_parent")) {
        char message[256] = "";
        int opened = (int)syscall(SYS_pidfd_open, getppid(), 0);
        snprintf(message, sizeof message, "pidfd_open(parent) %s", opened >= 0 ? "sent" : "refused");
        if (opened >= 0) close(opened);
        for (int fd = 3; fd < 1024; fd++) {
            char link[64], target[64] = "";
            snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
            ssize_t n = readlink(link, target, sizeof target - 1);
            if (n <= 0 || strstr(target, "pidfd") == NULL) continue;
            target[n] = 0;
            int sent = (int)syscall(SYS_pidfd_send_signal, fd, SIGTERM, NULL, 0) == 0;
            size_t used = strlen(message);
            snprintf(message + used, sizeof message - used, "; pidfd_send_signal(%d) %s: %s", fd, sent ? "sent" : "refused", sent ? "" : strerror(errno));
        }
        return ok_check(em, message) == PW_OK ? PW_OK : PW_ERR;
    }
    if (is(p, "attack")) {
        char message[512];
        attack_agent(p->attack, strcmp(p->from, "grandchild") == 0, message, sizeof message);
        return ok_check(em, message) == PW_OK ? PW_OK : PW_ERR;
    }
    if (is(p, "fork_many") && !p->forked) {
        p->forked = 1;
        fork_sleepers(atoi(p->count), p->count_file);
    }
    if (is(p, "chatter")) { printf("sample talking on stdout\n"); fprintf(stderr, "sample talking on stderr\n"); fflush(stdout); }
    if (is(p, "crash_first") && bump(p->count_file) <= 3) { volatile int *nowhere = NULL; *nowhere = 1; }
    if ((is(p, "fork_crash_first") || is(p, "fork_cut_crash_first")) && bump(p->count_file) <= 1) {
        if (fork() == 0) {
            char path[600];
            snprintf(path, sizeof path, "%s.forked", p->count_file);
            FILE *f = fopen(path, "w");
            if (f) { fprintf(f, "%ld\n", (long)getpid()); fclose(f); }
            sleep(120);
            _exit(0);
        }
        if (is(p, "fork_cut_crash_first")) {
            /* The child's socket to the agent is descriptor 3: a length of 104 and instance 1,
             * then nothing of the 100 bytes of body they promise. */
            const unsigned char cut[8] = {104, 0, 0, 0, 1, 0, 0, 0};
            ssize_t written = write(3, cut, sizeof cut);
            (void)written;
        }
        volatile int *nowhere = NULL; *nowhere = 1;
    }
    return ok_check(em, "fine now") == PW_OK ? PW_OK : PW_ERR;
}

static void hp_destroy(void *instance) {
    probe *p = instance;
    if (is(p, "chatter")) { printf("destroy talking on stdout\n"); fprintf(stderr, "destroy talking on stderr\n"); fflush(stdout); }
    free(instance);
}

static const pw_probe_descriptor descriptor = {
    PW_PROBE_ABI_VERSION, sizeof(pw_probe_descriptor), HOSTILE_NAME, "1.0.0", "Misbehaves as its config says.", 0,
    hp_create, hp_sample, NULL, NULL, hp_destroy,
};

const pw_probe_descriptor *pathwatch_probe_entry(void) { return &descriptor; }
