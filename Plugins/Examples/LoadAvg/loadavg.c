/*
 * loadavg.c — a Pathwatch probe plug-in written in C against pathwatch_probe.h alone.
 *
 * It reports the kernel's load averages (/proc/loadavg) next to the number of online CPUs, and
 * judges the 1-minute load per CPU against two thresholds. It is the example out-of-tree authors
 * copy: everything a plug-in must do is here, and nothing else.
 *
 * Build it without the rest of the project (from the repository root; out of tree, point -I at
 * the folder holding pathwatch_probe.h):
 *   cc -shared -fPIC -I SDK/Sources/CPathwatchProbe/include $(pkg-config --cflags json-c) \
 *      Plugins/Examples/LoadAvg/loadavg.c $(pkg-config --libs json-c) -o libpathwatch_loadavg.so
 */
/* POSIX.1-2008 for O_CLOEXEC, also under a strict -std=c11. */
#define _POSIX_C_SOURCE 200809L

#include "pathwatch_probe.h"

#include <json-c/json.h>

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define LOADAVG_PATH "/proc/loadavg"
#define ONLINE_PATH "/sys/devices/system/cpu/online"

/* One instance: its configuration and its own descriptors of the two files a sample reads.
 * procfs and sysfs make a file's text afresh on every read at offset 0, so a sample reads each
 * with one pread() instead of an open, a read and a close: with a thousand probes that is most
 * of what a sample costs. Two instances still share nothing. */
typedef struct loadavg_probe {
    double warn_per_cpu;
    double crit_per_cpu;
    int loadavg_fd;
    /* -1 where the file cannot be opened (a container without /sys): sysconf() counts then. */
    int online_fd;
} loadavg_probe;

/* What one reading of /proc/loadavg says: "0.20 0.18 0.12 1/80 11206". */
typedef struct loadavg_reading {
    double load[3];
    long running;
    long tasks;
} loadavg_reading;

/* Writes into the host's error buffers, truncating safely. The host sets struct_size; a field
 * that lies beyond it is not ours to write. */
static void set_error(pw_error *error, const char *path, const char *format, ...)
    __attribute__((format(printf, 3, 4)));

static void set_error(pw_error *error, const char *path, const char *format, ...) {
    if (error == NULL) return;
    if (error->struct_size >= offsetof(pw_error, path) + sizeof(error->path)) {
        snprintf(error->path, sizeof(error->path), "%s", path != NULL ? path : "");
    }
    if (error->struct_size >= offsetof(pw_error, message) + sizeof(error->message)) {
        va_list arguments;
        va_start(arguments, format);
        vsnprintf(error->message, sizeof(error->message), format, arguments);
        va_end(arguments);
    }
}

static const char *json_kind(json_object *value) {
    switch (json_object_get_type(value)) {
    case json_type_null: return "null";
    case json_type_boolean: return "a boolean";
    case json_type_double:
    case json_type_int: return "a number";
    case json_type_object: return "an object";
    case json_type_array: return "an array";
    case json_type_string: return "a string";
    }
    return "an unknown value";
}

/* Writes the JSON path of a key of the config object, the way the agent writes paths: a plain
 * name as it is ("warn_per_cpu"), any other in brackets and quotes ("[\"warn per cpu\"]"), so that
 * the agent, which prefixes "probes[N].config", reads a key with a dot in it as one key. */
static void json_path_of_key(const char *key, char *path, size_t size) {
    int plain = key[0] != '\0';
    for (const char *c = key; *c != '\0'; c++) {
        if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || *c == '_' || *c == '-')) {
            plain = 0;
            break;
        }
    }
    snprintf(path, size, plain ? "%s" : "[\"%s\"]", key);
}

/* Reads one threshold: a finite number >= 0. */
static int read_threshold(json_object *value, const char *key, double *out, pw_error *error) {
    json_type type = json_object_get_type(value);
    if (type != json_type_double && type != json_type_int) {
        set_error(error, key, "expected a number, found %s", json_kind(value));
        return PW_ERR;
    }
    double number = json_object_get_double(value);
    if (!isfinite(number) || number < 0) {
        set_error(error, key, "expected a number of at least 0, found %g", number);
        return PW_ERR;
    }
    *out = number;
    return PW_OK;
}

/* Parses and validates the config object into *probe (already holding the defaults). */
static int parse_config(const char *json, size_t length, loadavg_probe *probe, pw_error *error) {
    if (json == NULL || length == 0) return PW_OK; /* no config: defaults */

    json_tokener *tokener = json_tokener_new();
    if (tokener == NULL) {
        set_error(error, "", "out of memory");
        return PW_ERR;
    }
    json_tokener_set_flags(tokener, JSON_TOKENER_STRICT);
    /* json-c takes an int length; a config that large is refused rather than truncated. */
    json_object *root = NULL;
    if (length <= (size_t)INT32_MAX) root = json_tokener_parse_ex(tokener, json, (int)length);
    enum json_tokener_error parse_error = json_tokener_get_error(tokener);
    size_t parsed = json_tokener_get_parse_end(tokener);
    json_tokener_free(tokener);
    if (root == NULL || parse_error != json_tokener_success) {
        const char *reason = json_tokener_error_desc(parse_error);
        if (parse_error == json_tokener_continue) reason = "unexpected end of text";
        if (parse_error == json_tokener_success) reason = "too large";
        set_error(error, "", "config is not valid JSON: %s", reason);
        json_object_put(root);
        return PW_ERR;
    }
    for (size_t i = parsed; i < length; i++) {
        if (json[i] != ' ' && json[i] != '\t' && json[i] != '\n' && json[i] != '\r') {
            set_error(error, "", "config is not valid JSON: text after the object");
            json_object_put(root);
            return PW_ERR;
        }
    }
    if (!json_object_is_type(root, json_type_object)) {
        set_error(error, "", "expected an object, found %s", json_kind(root));
        json_object_put(root);
        return PW_ERR;
    }

    /* Every key is either one we know or an error naming it: a misspelt threshold must not
     * leave its default silently in force. */
    int status = PW_OK;
    json_object_object_foreach(root, key, value) {
        if (strcmp(key, "warn_per_cpu") == 0) {
            status = read_threshold(value, key, &probe->warn_per_cpu, error);
        } else if (strcmp(key, "crit_per_cpu") == 0) {
            status = read_threshold(value, key, &probe->crit_per_cpu, error);
        } else {
            char path[sizeof error->path];
            json_path_of_key(key, path, sizeof path);
            set_error(error, path, "unknown key \"%s\" (known keys here: crit_per_cpu, warn_per_cpu)", key);
            status = PW_ERR;
        }
        if (status != PW_OK) break;
    }
    json_object_put(root);
    if (status == PW_OK && probe->warn_per_cpu > probe->crit_per_cpu) {
        set_error(error, "warn_per_cpu", "must not exceed crit_per_cpu (%g), found %g", probe->crit_per_cpu,
                  probe->warn_per_cpu);
        status = PW_ERR;
    }
    return status;
}

static int loadavg_create(const char *config_json, size_t config_len, void **instance, pw_error *error) {
    if (instance == NULL) {
        set_error(error, "", "no place to store the instance");
        return PW_ERR;
    }
    loadavg_probe defaults = {.warn_per_cpu = 1.0, .crit_per_cpu = 2.0};
    if (parse_config(config_json, config_len, &defaults, error) != PW_OK) return PW_ERR;
    loadavg_probe *probe = malloc(sizeof(*probe));
    if (probe == NULL) {
        set_error(error, "", "out of memory");
        return PW_ERR;
    }
    *probe = defaults;
    probe->loadavg_fd = open(LOADAVG_PATH, O_RDONLY | O_CLOEXEC);
    if (probe->loadavg_fd < 0) {
        set_error(error, "", "cannot open %s: %s", LOADAVG_PATH, strerror(errno));
        free(probe);
        return PW_ERR;
    }
    probe->online_fd = open(ONLINE_PATH, O_RDONLY | O_CLOEXEC);
    *instance = probe;
    return PW_OK;
}

/* Reads a whole small kernel file afresh through its open descriptor: the text, NUL-ended, or
 * -1 with errno set. */
static ssize_t pread_text(int fd, char *buffer, size_t size) {
    ssize_t count;
    do {
        count = pread(fd, buffer, size - 1, 0);
    } while (count < 0 && errno == EINTR);
    if (count >= 0) buffer[count] = '\0';
    return count;
}

/* Parses "0.20 0.18 0.12 1/80 11206" strictly: every field present and numeric. */
static int parse_loadavg(const char *text, loadavg_reading *reading) {
    const char *cursor = text;
    for (int i = 0; i < 3; i++) {
        char *end = NULL;
        errno = 0;
        reading->load[i] = strtod(cursor, &end);
        if (end == cursor || errno != 0 || !isfinite(reading->load[i]) || reading->load[i] < 0) return PW_ERR;
        cursor = end;
    }
    char *end = NULL;
    errno = 0;
    reading->running = strtol(cursor, &end, 10);
    if (end == cursor || errno != 0 || *end != '/' || reading->running < 0) return PW_ERR;
    cursor = end + 1;
    reading->tasks = strtol(cursor, &end, 10);
    if (end == cursor || errno != 0 || reading->tasks < 0) return PW_ERR;
    return PW_OK;
}

static int read_loadavg(const loadavg_probe *probe, loadavg_reading *reading, pw_error *error) {
    char buffer[256];
    if (pread_text(probe->loadavg_fd, buffer, sizeof(buffer)) < 0) {
        set_error(error, "", "cannot read %s: %s", LOADAVG_PATH, strerror(errno));
        return PW_ERR;
    }
    if (parse_loadavg(buffer, reading) != PW_OK) {
        set_error(error, "", "%s has an unexpected shape: \"%.60s\"", LOADAVG_PATH, buffer);
        return PW_ERR;
    }
    return PW_OK;
}

/* Counts the CPUs in the kernel's list of online ones ("0-3", "0,2-5,7"), or returns -1 for a
 * text of another shape. */
static long count_cpu_list(const char *text) {
    long total = 0;
    const char *cursor = text;
    for (;;) {
        char *end = NULL;
        errno = 0;
        long first = strtol(cursor, &end, 10);
        if (end == cursor || errno != 0 || first < 0) return -1;
        long last = first;
        if (*end == '-') {
            cursor = end + 1;
            last = strtol(cursor, &end, 10);
            if (end == cursor || errno != 0 || last < first) return -1;
        }
        total += last - first + 1;
        if (*end != ',') return *end == '\n' || *end == '\0' ? total : -1;
        cursor = end + 1;
    }
}

/* The CPUs online now, as sysconf(_SC_NPROCESSORS_ONLN) counts them (glibc opens, reads and
 * closes the same sysfs file each time), from the instance's open descriptor where it has one. */
static long online_cpus(const loadavg_probe *probe) {
    if (probe->online_fd >= 0) {
        char buffer[256];
        if (pread_text(probe->online_fd, buffer, sizeof(buffer)) > 0) {
            long count = count_cpu_list(buffer);
            if (count > 0) return count;
        }
    }
    return sysconf(_SC_NPROCESSORS_ONLN);
}

static int loadavg_sample(void *instance, const pw_emitter *emitter, pw_error *error) {
    const loadavg_probe *probe = instance;
    if (probe == NULL || emitter == NULL || emitter->struct_size < sizeof(pw_emitter) || emitter->emit == NULL) {
        set_error(error, "", "sample called without an instance or an emitter");
        return PW_ERR;
    }
    loadavg_reading reading;
    if (read_loadavg(probe, &reading, error) != PW_OK) return PW_ERR;
    long online = online_cpus(probe);
    if (online < 1) {
        set_error(error, "", "cannot count online CPUs: %s", strerror(errno));
        return PW_ERR;
    }
    double cpus = (double)online;
    double per_cpu = reading.load[0] / cpus;

    pw_state state = PW_STATE_OK;
    const char *verdict = "";
    double limit = 0;
    if (per_cpu >= probe->crit_per_cpu) {
        state = PW_STATE_CRITICAL;
        verdict = "critical: ";
        limit = probe->crit_per_cpu;
    } else if (per_cpu >= probe->warn_per_cpu) {
        state = PW_STATE_WARNING;
        verdict = "warning: ";
        limit = probe->warn_per_cpu;
    }
    char message[160];
    if (state == PW_STATE_OK) {
        snprintf(message, sizeof(message), "load %.2f %.2f %.2f on %ld CPUs (%.2f per CPU)", reading.load[0],
                 reading.load[1], reading.load[2], online, per_cpu);
    } else {
        snprintf(message, sizeof(message), "%s%.2f per CPU (%s %g); load %.2f %.2f %.2f on %ld CPUs", verdict,
                 per_cpu, state == PW_STATE_CRITICAL ? "crit" : "warn", limit, reading.load[0], reading.load[1],
                 reading.load[2], online);
    }

    const pw_metric metrics[] = {
        {.struct_size = sizeof(pw_metric), .name = "load1", .value = reading.load[0]},
        {.struct_size = sizeof(pw_metric), .name = "load5", .value = reading.load[1]},
        {.struct_size = sizeof(pw_metric), .name = "load15", .value = reading.load[2]},
        {.struct_size = sizeof(pw_metric), .name = "load1_per_cpu", .value = per_cpu},
        {.struct_size = sizeof(pw_metric), .name = "cpus", .value = cpus},
        {.struct_size = sizeof(pw_metric), .name = "running", .value = (double)reading.running},
        {.struct_size = sizeof(pw_metric), .name = "tasks", .value = (double)reading.tasks},
    };
    const pw_observation observation = {
        .struct_size = sizeof(pw_observation),
        .key = "load",
        .state = state,
        .message = message,
        .metrics = metrics,
        .metric_count = sizeof(metrics) / sizeof(metrics[0]),
        .labels = NULL,
        .label_count = 0,
    };
    /* The host copies the observation during emit(): the stack arrays above may go away after. */
    if (emitter->emit(emitter->context, &observation) != PW_OK) {
        set_error(error, "", "the host refused the observation");
        return PW_ERR;
    }
    return PW_OK;
}

static void loadavg_destroy(void *instance) {
    loadavg_probe *probe = instance;
    if (probe == NULL) return;
    close(probe->loadavg_fd);
    if (probe->online_fd >= 0) close(probe->online_fd);
    free(probe);
}

/* What each metric is, said once: the agent takes each metric's type, unit and help from here
 * (pathwatch_probe.h, "Metric declarations"). Every name loadavg_sample emits is declared; all
 * are gauges, and none belongs on the status page's plots. The strings are static, as the
 * descriptor's are. */
static const pw_metric_info metric_declarations[] = {
    {sizeof(pw_metric_info), "load1", PW_METRIC_GAUGE, PW_PLOT_NONE, NULL,
     "Runnable and uninterruptible tasks, averaged over 1 minute."},
    {sizeof(pw_metric_info), "load5", PW_METRIC_GAUGE, PW_PLOT_NONE, NULL,
     "Runnable and uninterruptible tasks, averaged over 5 minutes."},
    {sizeof(pw_metric_info), "load15", PW_METRIC_GAUGE, PW_PLOT_NONE, NULL,
     "Runnable and uninterruptible tasks, averaged over 15 minutes."},
    {sizeof(pw_metric_info), "load1_per_cpu", PW_METRIC_GAUGE, PW_PLOT_NONE, NULL,
     "The 1-minute load average divided by the online CPUs."},
    {sizeof(pw_metric_info), "cpus", PW_METRIC_GAUGE, PW_PLOT_NONE, "{cpu}", "CPUs online."},
    {sizeof(pw_metric_info), "running", PW_METRIC_GAUGE, PW_PLOT_NONE, "{task}", "Tasks runnable right now."},
    {sizeof(pw_metric_info), "tasks", PW_METRIC_GAUGE, PW_PLOT_NONE, "{task}", "Tasks (threads) on the system."},
};

static const pw_probe_descriptor descriptor = {
    .abi_version = PW_PROBE_ABI_VERSION,
    .struct_size = sizeof(pw_probe_descriptor),
    .name = "loadavg",
    .version = "1.0.0",
    .description = "Load averages from /proc/loadavg, judged per online CPU",
    .flags = 0,
    .create = loadavg_create,
    .sample = loadavg_sample,
    .event_fd = NULL,
    .handle_event = NULL,
    .destroy = loadavg_destroy,
    .metrics = metric_declarations,
    .metric_count = sizeof(metric_declarations) / sizeof(metric_declarations[0]),
};

__attribute__((visibility("default"))) const pw_probe_descriptor *pathwatch_probe_entry(void) {
    return &descriptor;
}
