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
 *   "labels"   one check "c" (check label "site") with series of its own labels: q{queue="spam"} 1,
 *              q{queue="mail"} 2, q{queue="spam"} again, "wide" with 9 labels, "under" with a label
 *              "__x", "mine" with "probe", "site" with the check's "site", and "jobs" a counter with help:
 *              the two q and jobs kept, the rest left out naming why
 *   "bound"    one check "c" with "wide" over the bound of 8 labels, and n = 1
 *   "again"    one check "c" with q{queue="spam"} twice, and q{queue="mail"}
 *   "keytwice" observations keyed "k" twice, then "j"
 *   "reserved" one check "c" with q{probe="p"} (a label the agent gives every series) and n = 1
 *   "first"    one check "c" whose metrics are pw_metric as the first layout had it (24 bytes:
 *              struct_size, name, value), as a plug-in built before it grew hands them:
 *              lat_ms 12.5 and n 7, both kept
 */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "pathwatch_probe.h"

enum mode { PLAIN, NAMES, CLASH_MODE, TWICE, NOT_FINITE, REFUSED, KEYS, THREADS, SLOW, LABELS, BOUND, AGAIN, FIRST, KEY_TWICE, RESERVED };
typedef struct { enum mode mode; long samples; } probe;

static int fail(pw_error *e, const char *message) {
    snprintf(e->path, sizeof e->path, "%s", "mode");
    snprintf(e->message, sizeof e->message, "%s", message);
    return PW_ERR;
}

static const struct { const char *name; enum mode mode; } modes[] = {
    {"\"plain\"", PLAIN}, {"\"names\"", NAMES}, {"\"clash\"", CLASH_MODE}, {"\"twice\"", TWICE}, {"\"nan\"", NOT_FINITE},
    {"\"refused\"", REFUSED}, {"\"keys\"", KEYS}, {"\"threads\"", THREADS}, {"\"slow\"", SLOW},
    {"\"labels\"", LABELS}, {"\"bound\"", BOUND}, {"\"again\"", AGAIN}, {"\"first\"", FIRST},
    {"\"keytwice\"", KEY_TWICE}, {"\"reserved\"", RESERVED},
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

#define L(n, v) {sizeof(pw_label), n, v}
#define ML(n, v, labels, count) {sizeof(pw_metric), n, v, labels, count, PW_METRIC_GAUGE, 0, NULL}

static const pw_label spam[] = {L("queue", "spam")};
static const pw_label mail[] = {L("queue", "mail")};
static const pw_label nine[] = {L("a", "1"), L("b", "2"), L("c", "3"), L("d", "4"), L("e", "5"),
                                L("f", "6"), L("g", "7"), L("h", "8"), L("i", "9")};
static const pw_label under[] = {L("__x", "1")};
static const pw_label mine[] = {L("probe", "p")};
static const pw_label site[] = {L("site", "s")};

static int emit_labels(const pw_emitter *em) {
    pw_metric m[8] = {
        ML("q", 1, spam, 1), ML("q", 2, mail, 1), ML("q", 3, spam, 1), ML("wide", 4, nine, 9),
        ML("under", 5, under, 1), ML("mine", 6, mine, 1), ML("site", 7, site, 1),
        {sizeof(pw_metric), "jobs", 8, NULL, 0, PW_METRIC_COUNTER, 0, "Jobs taken."},
    };
    pw_observation o = {sizeof o, "c", PW_STATE_OK, "", m, 8, site, 1};
    return em->emit(em->context, &o);
}

/* pw_metric as its first layout had it: what a plug-in built before it grew hands over. */
typedef struct { size_t struct_size; const char *name; double value; } first_layout_metric;

static int emit_first_layout(const pw_emitter *em) {
    first_layout_metric m[2] = {{sizeof m[0], "lat_ms", 12.5}, {sizeof m[0], "n", 7}};
    return emit_metrics(em, "c", PW_STATE_OK, (const pw_metric *)m, 2);
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
    case LABELS:
        emit_labels(em);
        return PW_OK;
    case BOUND: {
        pw_metric m[2] = {ML("wide", 4, nine, 9), M("n", 1)};
        emit_metrics(em, "c", PW_STATE_OK, m, 2);
        return PW_OK;
    }
    case AGAIN: {
        pw_metric m[3] = {ML("q", 1, spam, 1), ML("q", 2, spam, 1), ML("q", 3, mail, 1)};
        emit_metrics(em, "c", PW_STATE_OK, m, 3);
        return PW_OK;
    }
    case KEY_TWICE:
        emit_metrics(em, "k", PW_STATE_OK, NULL, 0);
        emit_metrics(em, "k", PW_STATE_CRITICAL, NULL, 0);
        emit_metrics(em, "j", PW_STATE_OK, NULL, 0);
        return PW_OK;
    case RESERVED: {
        pw_metric m[2] = {ML("q", 1, mine, 1), M("n", 1)};
        emit_metrics(em, "c", PW_STATE_OK, m, 2);
        return PW_OK;
    }
    case FIRST:
        return emit_first_layout(em) == PW_OK ? PW_OK : fail(e, "emit refused the first layout's metrics");
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
