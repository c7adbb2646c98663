/* A plug-in that uses the edges of the boundary a careless or newer plug-in would use, for the
 * host's tests. Built with cc against the ABI header alone.
 *
 * Compile-time knobs: -DGROWN builds every struct it hands over (descriptor, observation,
 * metric, label) grown at its end, as a plug-in built against a later header would, with
 * struct_size set to the grown size. The extra fields hold values a host that walked arrays
 * with its own stride would misread. -DFLAGGED_EVENT_DRIVEN sets PW_PROBE_FLAG_EVENT_DRIVEN in
 * the descriptor's flags but leaves event_fd and handle_event NULL: a declaration the host
 * must refuse.
 *
 * Config: {"mode": M}, one of
 *   "plain"       one check "c" with metrics a=1, b=2 and labels x=1, y=2
 *   "late_emit"   each sample starts a thread that calls the emitter 100 ms after sample
 *                 returned; the next sample's message says what that late emit returned
 *   "long_message" one check whose message is 70,000 bytes of 'm' (past every host limit)
 *   "duplicate"   two observations keyed "c" in one sample (messages "first", "second")
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "pathwatch_probe.h"

#ifdef GROWN
typedef struct { pw_metric v1; double later[3]; } metric_t;
typedef struct { pw_label v1; const char *later[3]; } label_t;
typedef struct { pw_observation v1; size_t later[5]; } observation_t;
typedef struct { pw_probe_descriptor v1; void *later[6]; } descriptor_t;
#define GROWTH(v) , {v, v, v}
#define OBS_GROWTH , {7, 7, 7, 7, 7}
#define DESC_GROWTH , {(void *)1, (void *)2, (void *)3}
#else
typedef struct { pw_metric v1; } metric_t;
typedef struct { pw_label v1; } label_t;
typedef struct { pw_observation v1; } observation_t;
typedef struct { pw_probe_descriptor v1; } descriptor_t;
#define GROWTH(v)
#define OBS_GROWTH
#define DESC_GROWTH
#endif

enum mode { PLAIN, LATE_EMIT, LONG_MESSAGE, DUPLICATE };
typedef struct { enum mode mode; long samples; } probe;

/* What the last late emit returned: 99 until one happened. Global, because the thread may
 * outlive the instance. */
static atomic_int late_result = 99;

static int fail(pw_error *e, const char *message) {
    snprintf(e->path, sizeof e->path, "%s", "mode");
    snprintf(e->message, sizeof e->message, "%s", message);
    return PW_ERR;
}

static int bp_create(const char *json, size_t len, void **out, pw_error *e) {
    probe *p = calloc(1, sizeof *p);
    if (!p) return fail(e, "out of memory");
    char text[256] = {0};
    memcpy(text, json, len < sizeof text - 1 ? len : sizeof text - 1);
    if (strstr(text, "\"late_emit\"")) p->mode = LATE_EMIT;
    else if (strstr(text, "\"long_message\"")) p->mode = LONG_MESSAGE;
    else if (strstr(text, "\"duplicate\"")) p->mode = DUPLICATE;
    else if (strstr(text, "\"mode\"") && !strstr(text, "\"plain\"")) { free(p); return fail(e, "unknown mode"); }
    *out = p;
    return PW_OK;
}

static int emit(const pw_emitter *em, const char *key, const char *message) {
    metric_t metrics[2] = {{{sizeof(metric_t), "a", 1} GROWTH(-1)}, {{sizeof(metric_t), "b", 2} GROWTH(-2)}};
    label_t labels[2] = {{{sizeof(label_t), "x", "1"} GROWTH("grown")}, {{sizeof(label_t), "y", "2"} GROWTH("grown")}};
    observation_t o = {{sizeof(observation_t), key, PW_STATE_OK, message, &metrics[0].v1, 2, &labels[0].v1, 2} OBS_GROWTH};
    return em->emit(em->context, &o.v1);
}

static void *emit_late(void *argument) {
    const pw_emitter *em = argument;
    struct timespec ts = {0, 100 * 1000000L};
    nanosleep(&ts, NULL);
    atomic_store(&late_result, emit(em, "late", "emitted after sample returned"));
    return NULL;
}

static int bp_sample(void *instance, const pw_emitter *em, pw_error *e) {
    probe *p = instance;
    p->samples++;
    char message[64];
    switch (p->mode) {
    case PLAIN:
        return emit(em, "c", "plain") == PW_OK ? PW_OK : fail(e, "emit refused a plain observation");
    case LATE_EMIT: {
        snprintf(message, sizeof message, "late emit returned %d", atomic_load(&late_result));
        emit(em, "c", message);
        pthread_t thread;
        if (pthread_create(&thread, NULL, emit_late, (void *)em) == 0) pthread_detach(thread);
        return PW_OK;
    }
    case LONG_MESSAGE: {
        char *text = malloc(70001);
        if (!text) return fail(e, "out of memory");
        memset(text, 'm', 70000);
        text[70000] = 0;
        int status = emit(em, "c", text);
        free(text);
        return status == PW_OK ? PW_OK : fail(e, "emit refused the long message");
    }
    case DUPLICATE: {
        int first = emit(em, "c", "first");
        int second = emit(em, "c", "second");
        snprintf(message, sizeof message, "first emit %d, second emit %d", first, second);
        emit(em, "result", message);
        return PW_OK;
    }
    }
    return PW_OK;
}

static void bp_destroy(void *instance) { free(instance); }

#ifdef FLAGGED_EVENT_DRIVEN
#define BOUNDARY_FLAGS PW_PROBE_FLAG_EVENT_DRIVEN
#else
#define BOUNDARY_FLAGS 0
#endif

static const descriptor_t descriptor = {{
    PW_PROBE_ABI_VERSION, sizeof(descriptor_t), "boundary", "1.0.0", "Uses the edges of the plug-in boundary.", BOUNDARY_FLAGS,
    bp_create, bp_sample, NULL, NULL, bp_destroy,
} DESC_GROWTH};

const pw_probe_descriptor *pathwatch_probe_entry(void) { return &descriptor.v1; }
