/* A plug-in that declares its metrics and emits the mistakes authors make with them, for the
 * tests of the one validator the agent and ProbeTester share. Built with cc against the ABI
 * header alone.
 *
 * Compile-time knobs (declarations the host must refuse, naming what is wrong):
 *   -DCLASH       declares lat_ms in ms and lat_seconds in s: both would be …_lat_seconds
 *   -DBAD_UNIT    declares a unit the agent does not know ("furlong")
 *   -DBAD_NAME    declares a metric named "Lat ms"
 *   -DOLD_LAYOUT  says the first version-1 descriptor size: declares nothing
 *
 * Declared (by default): lat_ms (gauge, ms, latency), requests (counter), used_pct (gauge, %,
 * usage), window_ms (gauge, ms, no plot).
 *
 * Config: {"mode": M}, one of
 *   "plain"    one check "c": lat_ms 12.5, requests (one more each sample), used_pct 40, window_ms 5000
 *   "names"    one check "c" with metrics named "a b", "a_b", "", "t\xc3\xa9mp\xc3\xa9rature_\xe2\x84\x83",
 *              "Upper", and a 65-byte name: all but a_b are left out
 *   "clash"    one check "c" with x_ms and x_seconds (undeclared), lat_ms and lat_seconds: the second
 *              of each pair is left out, naming both
 *   "twice"    one check "c" with metric n twice
 *   "nan"      one check "c" with metric n = NaN and m = 1
 *   "refused"  three observations with state 9: every one refused
 *   "keys"     observations keyed "", 257 x's, "a\tb", and "ok"
 *   "threads"  8 threads emit 50 observations each (keys t<thread>_<n>) during sample, joined before it returns
 *   "slow"     sleeps 3 s in sample, then emits one check
 */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "pathwatch_probe.h"

enum mode { PLAIN, NAMES, CLASH_MODE, TWICE, NOT_FINITE, REFUSED, KEYS, THREADS, SLOW };
typedef struct { enum mode mode; long samples; } probe;

static int fail(pw_error *e, const char *message) {
    snprintf(e->path, sizeof e->path, "%s", "mode");
    snprintf(e->message, sizeof e->message, "%s", message);
    return PW_ERR;
}

static const struct { const char *name; enum mode mode; } modes[] = {
    {"\"plain\"", PLAIN}, {"\"names\"", NAMES}, {"\"clash\"", CLASH_MODE}, {"\"twice\"", TWICE}, {"\"nan\"", NOT_FINITE},
    {"\"refused\"", REFUSED}, {"\"keys\"", KEYS}, {"\"threads\"", THREADS}, {"\"slow\"", SLOW},
};

static int mp_create(const char *json, size_t len, void **out, pw_error *e) {
    probe *p = calloc(1, sizeof *p);
    if (!p) return fail(e, "out of memory");
    char text[256] = {0};
    memcpy(text, json, len < sizeof text - 1 ? len : sizeof text - 1);
    int found = !strstr(text, "\"mode\"");
    for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++) {
        if (strstr(text, modes[i].name)) { p->mode = modes[i].mode; found = 1; }
    }
    if (!found) { free(p); return fail(e, "unknown mode"); }
    *out = p;
    return PW_OK;
}

static int emit_metrics(const pw_emitter *em, const char *key, int state, const pw_metric *metrics, size_t count) {
    pw_observation o = {sizeof o, key, state, "", metrics, count, NULL, 0};
    return em->emit(em->context, &o);
}

#define M(n, v) {sizeof(pw_metric), n, v}

typedef struct { const pw_emitter *em; int thread; } emitter_job;

static void *emit_many(void *argument) {
    emitter_job *job = argument;
    for (int i = 0; i < 50; i++) {
        char key[32];
        snprintf(key, sizeof key, "t%d_%d", job->thread, i);
        pw_metric m[1] = {M("n", i)};
        emit_metrics(job->em, key, PW_STATE_OK, m, 1);
    }
    return NULL;
}

static int mp_sample(void *instance, const pw_emitter *em, pw_error *e) {
    probe *p = instance;
    p->samples++;
    switch (p->mode) {
    case PLAIN: {
        pw_metric m[4] = {M("lat_ms", 12.5), M("requests", (double)p->samples), M("used_pct", 40), M("window_ms", 5000)};
        return emit_metrics(em, "c", PW_STATE_OK, m, 4) == PW_OK ? PW_OK : fail(e, "emit refused a plain observation");
    }
    case NAMES: {
        char long_name[66];
        memset(long_name, 'a', 65);
        long_name[65] = 0;
        pw_metric m[6] = {M("a b", 1), M("a_b", 2), M("", 3), M("t\xc3\xa9mp\xc3\xa9rature_\xe2\x84\x83", 4), M("Upper", 5), M(long_name, 6)};
        emit_metrics(em, "c", PW_STATE_OK, m, 6);
        return PW_OK;
    }
    case CLASH_MODE: {
        pw_metric m[4] = {M("x_ms", 1), M("x_seconds", 2), M("lat_ms", 3), M("lat_seconds", 4)};
        emit_metrics(em, "c", PW_STATE_OK, m, 4);
        return PW_OK;
    }
    case TWICE: {
        pw_metric m[2] = {M("n", 1), M("n", 2)};
        emit_metrics(em, "c", PW_STATE_OK, m, 2);
        return PW_OK;
    }
    case NOT_FINITE: {
        pw_metric m[2] = {M("n", NAN), M("m", 1)};
        emit_metrics(em, "c", PW_STATE_OK, m, 2);
        return PW_OK;
    }
    case REFUSED:
        for (int i = 0; i < 3; i++) {
            char key[8];
            snprintf(key, sizeof key, "r%d", i);
            emit_metrics(em, key, 9, NULL, 0);
        }
        return PW_OK;
    case KEYS: {
        char long_key[258];
        memset(long_key, 'x', 257);
        long_key[257] = 0;
        emit_metrics(em, "", PW_STATE_OK, NULL, 0);
        emit_metrics(em, long_key, PW_STATE_OK, NULL, 0);
        emit_metrics(em, "a\tb", PW_STATE_OK, NULL, 0);
        emit_metrics(em, "ok", PW_STATE_OK, NULL, 0);
        return PW_OK;
    }
    case THREADS: {
        pthread_t threads[8];
        emitter_job jobs[8];
        for (int t = 0; t < 8; t++) {
            jobs[t] = (emitter_job){em, t};
            if (pthread_create(&threads[t], NULL, emit_many, &jobs[t]) != 0) return fail(e, "no thread");
        }
        for (int t = 0; t < 8; t++) pthread_join(threads[t], NULL);
        return PW_OK;
    }
    case SLOW: {
        struct timespec ts = {3, 0};
        nanosleep(&ts, NULL);
        emit_metrics(em, "c", PW_STATE_OK, NULL, 0);
        return PW_OK;
    }
    }
    return PW_OK;
}

static void mp_destroy(void *instance) { free(instance); }

#define INFO(n, k, p, u, h) {sizeof(pw_metric_info), n, k, p, u, h}
static const pw_metric_info declared[] = {
#if defined(BAD_NAME)
    INFO("Lat ms", PW_METRIC_GAUGE, PW_PLOT_LATENCY, "ms", "A round trip."),
#else
    INFO("lat_ms", PW_METRIC_GAUGE, PW_PLOT_LATENCY, "ms", "A round trip."),
#endif
    INFO("requests", PW_METRIC_COUNTER, PW_PLOT_NONE, NULL, "Requests answered since the instance started."),
#if defined(BAD_UNIT)
    INFO("used_pct", PW_METRIC_GAUGE, PW_PLOT_USAGE, "furlong", "Space in use."),
#else
    INFO("used_pct", PW_METRIC_GAUGE, PW_PLOT_USAGE, "%", "Space in use."),
#endif
    INFO("window_ms", PW_METRIC_GAUGE, PW_PLOT_NONE, "ms", "How long the sample looked."),
#if defined(CLASH)
    INFO("lat_seconds", PW_METRIC_GAUGE, PW_PLOT_LATENCY, "s", "The same round trip."),
#endif
};

static const pw_probe_descriptor descriptor = {
    .abi_version = PW_PROBE_ABI_VERSION,
#if defined(OLD_LAYOUT)
    .struct_size = offsetof(pw_probe_descriptor, metrics),
#else
    .struct_size = sizeof(pw_probe_descriptor),
#endif
    .name = "metrics",
    .version = "1.0.0",
    .description = "Declares its metrics and emits the mistakes authors make with them.",
    .create = mp_create,
    .sample = mp_sample,
    .destroy = mp_destroy,
    .metrics = declared,
    .metric_count = sizeof declared / sizeof declared[0],
};

const pw_probe_descriptor *pathwatch_probe_entry(void) { return &descriptor; }
