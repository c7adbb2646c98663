/* An event-driven probe for the tests of the event descriptor, built with cc against the ABI
 * header alone (and json-c for its config).
 *
 * Config:
 *   "fifo": path        watch this FIFO (opened read-write and non-blocking, so it never reads
 *                       as hung up); without it, an eventfd the probe signals once in create,
 *                       so it is readable at once
 *   "drain": false      handle_event never reads the descriptor (the mistake the host guards
 *                       against: it stays readable); default true, read to EAGAIN
 *   "drain_when": path  with "drain": false, handle_event drains again once this file exists
 *
 * handle_event emits one check "event": state ok, message what it read (its last line, for a
 * FIFO; "signalled" for the eventfd; "not drained" when it did not read), metric "events"
 * counting the calls. sample emits one check "sampled".
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <unistd.h>
#include <json-c/json.h>
#include "pathwatch_probe.h"

typedef struct {
    int fd;
    int is_fifo;
    int drain;
    char drain_when[512];
    double events;
} event_probe;

static int fail(pw_error *e, const char *message) {
    snprintf(e->path, sizeof e->path, "%s", "");
    snprintf(e->message, sizeof e->message, "%s", message);
    return PW_ERR;
}

static int ep_create(const char *json, size_t len, void **out, pw_error *e) {
    json_tokener *tok = json_tokener_new();
    json_object *root = json_tokener_parse_ex(tok, json, (int)len);
    json_tokener_free(tok);
    if (!root || !json_object_is_type(root, json_type_object)) {
        if (root) json_object_put(root);
        return fail(e, "expected a JSON object");
    }
    event_probe *p = calloc(1, sizeof *p);
    if (!p) { json_object_put(root); return fail(e, "out of memory"); }
    p->drain = 1;
    json_object *v;
    if (json_object_object_get_ex(root, "drain", &v)) p->drain = json_object_get_boolean(v);
    if (json_object_object_get_ex(root, "drain_when", &v)) snprintf(p->drain_when, sizeof p->drain_when, "%s", json_object_get_string(v));
    if (json_object_object_get_ex(root, "fifo", &v)) {
        p->is_fifo = 1;
        p->fd = open(json_object_get_string(v), O_RDWR | O_NONBLOCK | O_CLOEXEC);
    } else {
        p->fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
        uint64_t one = 1;
        if (p->fd >= 0 && write(p->fd, &one, sizeof one) != sizeof one) { close(p->fd); p->fd = -1; }
    }
    json_object_put(root);
    if (p->fd < 0) {
        char message[256];
        snprintf(message, sizeof message, "cannot open the event descriptor: %s", strerror(errno));
        free(p);
        return fail(e, message);
    }
    *out = p;
    return PW_OK;
}

static int emit(const pw_emitter *em, const char *key, const char *message, double events) {
    pw_metric metric = {sizeof metric, "events", events};
    pw_observation o = {sizeof o, key, PW_STATE_OK, message, &metric, 1, NULL, 0};
    return em->emit(em->context, &o);
}

static int ep_sample(void *instance, const pw_emitter *em, pw_error *e) {
    event_probe *p = instance;
    (void)e;
    return emit(em, "sampled", "sampled", p->events) == PW_OK ? PW_OK : PW_ERR;
}

static int ep_event_fd(void *instance) { return ((event_probe *)instance)->fd; }

static int ep_handle_event(void *instance, const pw_emitter *em, pw_error *e) {
    event_probe *p = instance;
    (void)e;
    p->events++;
    struct stat st;
    int drain = p->drain || (p->drain_when[0] && stat(p->drain_when, &st) == 0);
    if (!drain) return emit(em, "event", "not drained", p->events) == PW_OK ? PW_OK : PW_ERR;
    char message[256] = "signalled";
    if (p->is_fifo) {
        /* Read to EAGAIN; the message is the last line read. */
        char buffer[4096], text[4096] = "";
        size_t used = 0;
        ssize_t n;
        while ((n = read(p->fd, buffer, sizeof buffer)) > 0) {
            for (ssize_t i = 0; i < n; i++) {
                if (buffer[i] == '\n') {
                    if (used > 0) { text[used] = 0; snprintf(message, sizeof message, "%.200s", text); }
                    used = 0;
                } else if (used < sizeof text - 1) {
                    text[used++] = buffer[i];
                }
            }
        }
        if (used > 0) { text[used] = 0; snprintf(message, sizeof message, "%.200s", text); }
    } else {
        uint64_t count;
        while (read(p->fd, &count, sizeof count) > 0) {}
    }
    return emit(em, "event", message, p->events) == PW_OK ? PW_OK : PW_ERR;
}

static void ep_destroy(void *instance) {
    event_probe *p = instance;
    close(p->fd);
    free(p);
}

static const pw_probe_descriptor descriptor = {
    PW_PROBE_ABI_VERSION, sizeof descriptor, "eventprobe", "1.0.0", "Reports what its FIFO or eventfd says.",
    PW_PROBE_FLAG_EVENT_DRIVEN, ep_create, ep_sample, ep_event_fd, ep_handle_event, ep_destroy,
};

const pw_probe_descriptor *pathwatch_probe_entry(void) { return &descriptor; }
