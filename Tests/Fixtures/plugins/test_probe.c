/* A configurable probe for the agent's own tests, built with cc against the ABI header alone.
 *
 * Compile-time knobs: -DTEST_NAME='"name"' (default "testprobe"), -DTEST_ABI=N (default the
 * header's), -DTEST_NULL_NAME (a descriptor with no name), -DTEST_EVENT_DRIVEN (event_fd and
 * handle_event; event_fd returns the config's "event_fd", -1 by default: no descriptor).
 *
 * Config (json-c):
 *   "state_file": path  each sample reads "STATE MESSAGE" lines ("ok fine") from it, one check
 *                       per line keyed c0, c1, ...; a missing file fails the sample
 *   "checks": N         otherwise N checks c0..c(N-1), all "state" (default "ok")
 *   "sleep_ms": N       every sample sleeps that long first (a hung plug-in with a large N)
 *   "wait_file": path   every sample first waits until this file exists (hung until the test lets it go)
 *   "sleep_past_deadline_ms": N   every sample sleeps until N ms after its deadline (pw_call_deadline_ns)
 *   "deadline": true    a check "deadline" whose message is the sample's deadline in nanoseconds
 *                       ("none" without one), and "create_deadline" with create's
 *   "garbage": true     emits malformed observations (bad state, NULL key, NaN metric) besides one good one
 *   "fail_path": "a.b"  create() fails with this JSON path and a message
 *   "fail_message": s   ... and this message (cut to the header's 768-byte buffer like any other)
 *   "echo": "text"      put this text in every check's message (secret-redaction tests)
 *   "echo_env": "NAME"  put the value of environment variable NAME, as the plug-in sees it when
 *                       created, in every check's message ("(unset)" without one)
 *   "metric_echo": "text"   give every check a metric with this text as its name (value 1)
 *   "message_bytes": N  every check's message is N bytes of 'x' (large documents; the host cuts at 4096)
 *   "duplicate": true   emits c0 a second time, critical, after the checks (the host refuses it)
 *   "counter": true     a metric "samples" counting this instance's samples
 *   "crash_in": "create"|"sample"   dereferences NULL there (SIGSEGV)
 *   "exit_in": "create"|"sample"    calls exit(3) there
 *   "chatter": true     prints to stdout and stderr in every call
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <json-c/json.h>
#include "pathwatch_probe.h"

#ifndef TEST_NAME
#define TEST_NAME "testprobe"
#endif
#ifndef TEST_ABI
#define TEST_ABI PW_PROBE_ABI_VERSION
#endif

typedef struct {
    char state_file[512];
    char wait_file[512];
    int checks;
    int state;
    long sleep_ms;
    long sleep_past_deadline_ms;
    int deadline;
    uint64_t create_deadline;
    int garbage;
    int duplicate;
    int event_fd;
    char echo[256];
    char metric_echo[256];
    int counter;
    long samples;
    int crash_in_sample;
    int exit_in_sample;
    int chatter;
    char *long_message;
} test_probe;

/* Hostile behaviours for the isolation and trial tests. */
static void misbehave(int crash, int leave, int chatter, const char *where) {
    if (chatter) {
        printf("testprobe chatter on stdout in %s\n", where);
        fflush(stdout);
        fprintf(stderr, "testprobe chatter on stderr in %s\n", where);
    }
    if (leave) exit(3);
    if (crash) { volatile int *nowhere = NULL; *nowhere = 1; }
}

static int state_from(const char *s) {
    if (strcmp(s, "ok") == 0) return PW_STATE_OK;
    if (strcmp(s, "warning") == 0) return PW_STATE_WARNING;
    if (strcmp(s, "critical") == 0) return PW_STATE_CRITICAL;
    if (strcmp(s, "unknown") == 0) return PW_STATE_UNKNOWN;
    return -1;
}

static int fail(pw_error *e, const char *path, const char *message) {
    if (e) {
        snprintf(e->path, sizeof e->path, "%s", path);
        snprintf(e->message, sizeof e->message, "%s", message);
    }
    return PW_ERR;
}

static int tp_create(const char *json, size_t len, void **out, pw_error *e) {
    json_tokener *tok = json_tokener_new();
    json_object *root = json_tokener_parse_ex(tok, json, (int)len);
    json_tokener_free(tok);
    if (!root || !json_object_is_type(root, json_type_object)) {
        if (root) json_object_put(root);
        return fail(e, "", "expected a JSON object");
    }
    json_object *v;
    int chatter = json_object_object_get_ex(root, "chatter", &v) && json_object_get_boolean(v);
    const char *crash_in = json_object_object_get_ex(root, "crash_in", &v) ? json_object_get_string(v) : "";
    const char *exit_in = json_object_object_get_ex(root, "exit_in", &v) ? json_object_get_string(v) : "";
    misbehave(strcmp(crash_in, "create") == 0, strcmp(exit_in, "create") == 0, chatter, "create");
    test_probe *p = calloc(1, sizeof *p);
    if (!p) { json_object_put(root); return fail(e, "", "out of memory"); }
    p->checks = 1;
    p->event_fd = -1;
    p->chatter = chatter;
    p->crash_in_sample = strcmp(crash_in, "sample") == 0;
    p->exit_in_sample = strcmp(exit_in, "sample") == 0;
    if (json_object_object_get_ex(root, "fail_path", &v)) {
        json_object *m;
        const char *message = json_object_object_get_ex(root, "fail_message", &m) ? json_object_get_string(m) : "refused as the test asked";
        fail(e, json_object_get_string(v), message);
        json_object_put(root);
        free(p);
        return PW_ERR;
    }
    if (json_object_object_get_ex(root, "state_file", &v)) snprintf(p->state_file, sizeof p->state_file, "%s", json_object_get_string(v));
    if (json_object_object_get_ex(root, "checks", &v)) p->checks = json_object_get_int(v);
    if (json_object_object_get_ex(root, "state", &v)) p->state = state_from(json_object_get_string(v));
    if (json_object_object_get_ex(root, "wait_file", &v)) snprintf(p->wait_file, sizeof p->wait_file, "%s", json_object_get_string(v));
    if (json_object_object_get_ex(root, "sleep_ms", &v)) p->sleep_ms = json_object_get_int64(v);
    if (json_object_object_get_ex(root, "sleep_past_deadline_ms", &v)) p->sleep_past_deadline_ms = json_object_get_int64(v);
    if (json_object_object_get_ex(root, "deadline", &v)) p->deadline = json_object_get_boolean(v);
    p->create_deadline = pw_call_deadline_ns(e);
    if (json_object_object_get_ex(root, "garbage", &v)) p->garbage = json_object_get_boolean(v);
    if (json_object_object_get_ex(root, "duplicate", &v)) p->duplicate = json_object_get_boolean(v);
    if (json_object_object_get_ex(root, "event_fd", &v)) p->event_fd = json_object_get_int(v);
    if (json_object_object_get_ex(root, "message_bytes", &v) && json_object_get_int(v) > 0) {
        int n = json_object_get_int(v);
        p->long_message = malloc((size_t)n + 1);
        if (p->long_message) { memset(p->long_message, 'x', (size_t)n); p->long_message[n] = 0; }
    }
    if (json_object_object_get_ex(root, "counter", &v)) p->counter = json_object_get_boolean(v);
    if (json_object_object_get_ex(root, "echo", &v)) snprintf(p->echo, sizeof p->echo, "%s", json_object_get_string(v));
    if (json_object_object_get_ex(root, "echo_env", &v)) {
        const char *value = getenv(json_object_get_string(v));
        snprintf(p->echo, sizeof p->echo, "%s", value ? value : "(unset)");
    }
    if (json_object_object_get_ex(root, "metric_echo", &v)) snprintf(p->metric_echo, sizeof p->metric_echo, "%s", json_object_get_string(v));
    json_object_put(root);
    if (p->state < 0) { free(p->long_message); free(p); return fail(e, "state", "expected ok, warning, critical or unknown"); }
    *out = p;
    return PW_OK;
}

static int emit_one_with(const pw_emitter *em, const char *key, int state, const char *message, double samples, int with_counter,
                         const char *extra) {
    pw_metric metrics[2];
    size_t count = 0;
    if (with_counter) metrics[count++] = (pw_metric){sizeof(pw_metric), "samples", samples};
    if (extra) metrics[count++] = (pw_metric){sizeof(pw_metric), extra, 1};
    pw_label labels[1] = {{sizeof(pw_label), "fixture", "yes"}};
    pw_observation o = {sizeof(pw_observation), key, state, message, metrics, count, labels, 1};
    return em->emit(em->context, &o);
}

static int emit_one(const pw_emitter *em, const char *key, int state, const char *message, double samples, int with_counter) {
    return emit_one_with(em, key, state, message, samples, with_counter, NULL);
}

static int tp_sample(void *instance, const pw_emitter *em, pw_error *e) {
    test_probe *p = instance;
    p->samples++;
    misbehave(p->crash_in_sample, p->exit_in_sample, p->chatter, "sample");
    if (p->wait_file[0]) {
        FILE *gate;
        while (!(gate = fopen(p->wait_file, "r"))) {
            struct timespec ts = {0, 20 * 1000000L};
            nanosleep(&ts, NULL);
        }
        fclose(gate);
    }
    if (p->sleep_ms > 0) {
        struct timespec ts = {p->sleep_ms / 1000, (p->sleep_ms % 1000) * 1000000L};
        while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {}
    }
    uint64_t deadline = pw_call_deadline_ns(e);
    if (p->sleep_past_deadline_ms > 0 && deadline > 0) {
        uint64_t until = deadline + (uint64_t)p->sleep_past_deadline_ms * 1000000u;
        struct timespec ts = {(time_t)(until / 1000000000u), (long)(until % 1000000000u)};
        while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR) {}
    }
    if (p->deadline) {
        char text[2][32] = {"none", "none"};
        if (deadline) snprintf(text[0], sizeof text[0], "%llu", (unsigned long long)deadline);
        if (p->create_deadline) snprintf(text[1], sizeof text[1], "%llu", (unsigned long long)p->create_deadline);
        emit_one(em, "deadline", PW_STATE_OK, text[0], 0, 0);
        emit_one(em, "create_deadline", PW_STATE_OK, text[1], 0, 0);
        return PW_OK;
    }
    char key[32];
    if (p->state_file[0]) {
        FILE *f = fopen(p->state_file, "r");
        if (!f) return fail(e, "", "cannot open the state file");
        char line[512];
        int i = 0;
        while (fgets(line, sizeof line, f)) {
            line[strcspn(line, "\n")] = 0;
            char *space = strchr(line, ' ');
            const char *message = "";
            if (space) { *space = 0; message = space + 1; }
            int st = state_from(line);
            if (st < 0) continue;
            snprintf(key, sizeof key, "c%d", i++);
            emit_one_with(em, key, st, p->echo[0] ? p->echo : message, (double)p->samples, p->counter, p->metric_echo[0] ? p->metric_echo : NULL);
        }
        fclose(f);
        return PW_OK;
    }
    for (int i = 0; i < p->checks; i++) {
        snprintf(key, sizeof key, "c%d", i);
        emit_one_with(em, key, p->state, p->echo[0] ? p->echo : p->long_message ? p->long_message : "fixture check", (double)p->samples, p->counter, p->metric_echo[0] ? p->metric_echo : NULL);
    }
    if (p->duplicate) emit_one(em, "c0", PW_STATE_CRITICAL, "the same key again", 0, 0);
    if (p->garbage) {
        pw_observation bad_state = {sizeof(pw_observation), "bad-state", 42, "x", NULL, 0, NULL, 0};
        em->emit(em->context, &bad_state);
        pw_observation null_key = {sizeof(pw_observation), NULL, PW_STATE_OK, "x", NULL, 0, NULL, 0};
        em->emit(em->context, &null_key);
        pw_observation short_struct = {8, "short", PW_STATE_OK, "x", NULL, 0, NULL, 0};
        em->emit(em->context, &short_struct);
        pw_observation null_array = {sizeof(pw_observation), "null-array", PW_STATE_OK, "x", NULL, 3, NULL, 0};
        em->emit(em->context, &null_array);
        pw_metric nan_metric[2] = {{sizeof(pw_metric), "nan", NAN}, {sizeof(pw_metric), "fine", 1.5}};
        pw_observation with_nan = {sizeof(pw_observation), "with-nan", PW_STATE_OK, "x", nan_metric, 2, NULL, 0};
        em->emit(em->context, &with_nan);
    }
    return PW_OK;
}

static void tp_destroy(void *instance) {
    test_probe *p = instance;
    free(p->long_message);
    free(p);
}

#ifdef TEST_EVENT_DRIVEN
static int tp_event_fd(void *instance) { return ((test_probe *)instance)->event_fd; }
static int tp_handle_event(void *instance, const pw_emitter *em, pw_error *e) { (void)instance; (void)em; (void)e; return PW_OK; }
#endif

static const pw_probe_descriptor descriptor = {
    TEST_ABI,
    sizeof(pw_probe_descriptor),
#ifdef TEST_NULL_NAME
    NULL,
#else
    TEST_NAME,
#endif
    "9.9.9",
    "A configurable probe for the agent's tests.",
    0,
    tp_create,
    tp_sample,
#ifdef TEST_EVENT_DRIVEN
    tp_event_fd,
    tp_handle_event,
#else
    NULL,
    NULL,
#endif
    tp_destroy,
};

const pw_probe_descriptor *pathwatch_probe_entry(void) { return &descriptor; }
