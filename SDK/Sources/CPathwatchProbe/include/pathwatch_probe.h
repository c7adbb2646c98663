/*
 * pathwatch_probe.h — the Pathwatch probe plug-in ABI, version 1.
 *
 * This is the only file a plug-in author needs. A probe plug-in is a shared
 * library (lib<name>.so) that exports one C symbol, PW_PROBE_ENTRY_SYMBOL,
 * returning a pointer to a static, immutable pw_probe_descriptor.
 *
 * Rules of the boundary
 *   - Only the C types below cross it; no language runtime type ever does.
 *   - Configuration goes in as JSON text (UTF-8, not NUL-terminated: use the length).
 *   - Observations come out as pw_observation structs through the host's
 *     pw_emitter callback. Everything an observation points to only needs to
 *     stay valid for the duration of the emit() call: the host copies it.
 *   - Memory is owned by whoever allocated it. The host never frees plug-in
 *     memory and the plug-in never frees host memory. Error text is written
 *     into buffers the host owns (pw_error).
 *   - Every struct that crosses the boundary begins with struct_size, set by
 *     whoever fills it, so either side can grow a struct at its end without
 *     breaking the other: a reader only touches fields that lie within the
 *     struct_size it was given. Arrays (pw_observation.metrics, .labels) are
 *     walked with their first element's struct_size as the stride; every element
 *     of one array must carry that same struct_size.
 *   - Threads: the host never calls into one instance from two threads at once:
 *     create, sample, event_fd, handle_event and destroy of one instance are
 *     serialised, but successive calls may come from different threads (keep no
 *     thread-local state between calls). Distinct instances (even of the same
 *     plug-in) may be called concurrently, so keep no mutable global state, or
 *     guard it.
 *   - Every call that may block gets a deadline (pw_error.deadline_ns, read with
 *     pw_call_deadline_ns): fit your waits inside it; the host kills a plug-in that overruns
 *     it by more than 1 s. See pw_error.
 *   - The emitter is valid only during the call it was handed to. emit() may be
 *     called from threads of the plug-in's own while that call runs; called
 *     after the call returned, it returns PW_ERR and the observation is dropped,
 *     and the instance's next call says so (the host logs it once per probe).
 *
 * Limits the host holds a plug-in's output to (over them, emit() returns PW_ERR
 * and the host logs the reason with the probe's id, unless said otherwise):
 *   - 100,000 observations per call;
 *   - one observation per check key per call: a second one with the same key is
 *     refused, the first kept;
 *   - a key of 1 to 256 characters of printable UTF-8;
 *   - 1,024 metrics and 1,024 labels per observation; 8 labels per metric;
 *   - metric names, label names and label values of at most 65,535 bytes of UTF-8;
 *   - a message of at most 4,096 bytes: a longer one is kept, cut at a character
 *     boundary and marked " [truncated by pathwatch]" (emit() returns PW_OK);
 *   - non-finite metric values are dropped from an observation that is kept, and so is a
 *     metric whose name is not [a-z][a-z0-9_]* of at most 64 bytes, a metric named twice in
 *     one observation, and a metric that would expose the same series as another of the
 *     observation ("lat_ms" and "lat_seconds"); the host logs why, naming both;
 *   - an element struct_size (stride) of at most 4,096 bytes, a multiple of 8.
 *   - The host refuses a plug-in whose abi_version differs from
 *     PW_PROBE_ABI_VERSION, whose struct_size is smaller than the first version-1
 *     descriptor (up to and with destroy), or whose name is NULL or empty.
 */
#ifndef PATHWATCH_PROBE_H
#define PATHWATCH_PROBE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The ABI version this header describes. Bumped on any incompatible change. */
#define PW_PROBE_ABI_VERSION 1u

/* The one symbol every plug-in exports, and its type. */
#define PW_PROBE_ENTRY_SYMBOL "pathwatch_probe_entry"

/* Return codes of the plug-in's calls. */
#define PW_OK 0
#define PW_ERR (-1)

/* States of a check, in Nagios order (the values are the `pathwatch once` exit codes). */
typedef enum pw_state {
    PW_STATE_OK = 0,
    PW_STATE_WARNING = 1,
    PW_STATE_CRITICAL = 2,
    PW_STATE_UNKNOWN = 3
} pw_state;

/* Descriptor flags. */
/* The probe observes things reached over the network (HTTP endpoints, say). While the
 * host's connectivity path is unsatisfied, the host attributes this probe's state changes
 * to the path going offline instead of raising one alert per check. */
#define PW_PROBE_FLAG_NEEDS_NETWORK (1ull << 0)
/* The probe is event-driven: it implements event_fd and handle_event. It is still sampled
 * on its interval (to report its current state), but changes arrive through the descriptor. */
#define PW_PROBE_FLAG_EVENT_DRIVEN (1ull << 1)
/* The probe checks what lies behind the host's link (a connectivity probe asking a check URL):
 * besides its interval, the host samples it at once whenever a link with a default route comes
 * up or another interface takes over the path, so its verdict follows the link within one
 * check. A sample running when that happens is superseded: its result is dropped. */
#define PW_PROBE_FLAG_SAMPLE_ON_PATH_CHANGE (1ull << 2)

/*
 * Well-known labels: how a link probe tells the host about connectivity, so the host can
 * compute the status document's `path` without knowing anything about netlink. A link probe
 * attaches them to its per-interface observations; the host reads them and removes them from
 * the labels it publishes (their values change, labels must not churn).
 *
 *   PW_LABEL_IF_NAME       interface name the observation describes ("eth0")
 *   PW_LABEL_IF_TYPE       "wifi" | "cellular" | "ethernet" | "loopback" | "other"
 *   PW_LABEL_IF_USABLE     "1" when administratively up with carrier, else "0"
 *   PW_LABEL_DEFAULT_ROUTE a default route (IPv4 or IPv6) leaves through this interface;
 *                          the value is its metric in decimal ("100"). Absent otherwise.
 *   PW_LABEL_METERED       "1" when the configuration marks the interface metered
 *
 * The path is satisfied when at least one usable interface carries a default route; the
 * one with the lowest metric is the path's interface. It is expensive when that interface
 * is cellular or metered. When observations carry these labels but no usable interface has
 * a default route, or a link probe's path observation (PW_LABEL_LINK_MONITOR) says it watches the
 * links and reports none, the path is unsatisfied.
 */
#define PW_LABEL_IF_NAME "pathwatch.if.name"
#define PW_LABEL_IF_TYPE "pathwatch.if.type"
#define PW_LABEL_IF_USABLE "pathwatch.if.usable"
#define PW_LABEL_DEFAULT_ROUTE "pathwatch.if.default_route"
#define PW_LABEL_METERED "pathwatch.if.metered"
/* "1" on the observation a link probe makes of the path itself: the probe watches every link,
 * so when none of its observations carries PW_LABEL_IF_NAME (a host whose only links are ignored
 * ones, or no links at all) the path is unsatisfied, not unmonitored. */
#define PW_LABEL_LINK_MONITOR "pathwatch.link.monitor"
/* What the link path leads to, as a connectivity probe found it by asking a check URL:
 * "full" (the expected answer), "portal" (another answer: a captive portal's redirect or login
 * page), "limited" (no answer: timeout, refused, DNS failure) or "unknown". The host publishes
 * it as the path's `internet`; with one reported, the path is satisfied only when it is "full"
 * (any observation saying "full" suffices when several do), and checks of probes flagged
 * PW_PROBE_FLAG_NEEDS_NETWORK stay silent while it is not. When the link changes, the host
 * holds it "unknown" until the probe reports again. */
#define PW_LABEL_INTERNET "pathwatch.internet"
/* Whether the host's name resolution works, as a DNS probe found it by asking the host's
 * resolvers: "ok" (some resolver answered, with records or an authoritative NXDOMAIN),
 * "not-answering" (none answered at all), "failing:RCODE" (they answered only with that error
 * code, "failing:SERVFAIL"), or "unknown". Any observation saying "ok" suffices when several
 * report. When none does and the link is usable with a default route, the path's `internet` is
 * "limited" whatever a connectivity probe says short of a portal (its check URL may answer by
 * address while names fail), the path is unsatisfied, and its description says why:
 * "Connected via Ethernet (eth0), DNS not answering" or "…, DNS failing: SERVFAIL". Checks of
 * probes flagged PW_PROBE_FLAG_NEEDS_NETWORK then stay silent (one alert for the path, from the
 * observation carrying this label, not one per endpoint that cannot resolve its name). When the
 * link changes, the host holds it "unknown" until the probe reports again. */
#define PW_LABEL_DNS "pathwatch.dns"
/* "1": this observation failed for the agent's own lack of a resource (file descriptors), not
 * because of what it observes. Send it with state PW_STATE_UNKNOWN: the host shows the check
 * unknown with the message, but raises no change event for it. */
#define PW_LABEL_AGENT_FAULT "pathwatch.agent_fault"
/* Prefix of every label reserved for the host. */
#define PW_LABEL_RESERVED_PREFIX "pathwatch."

/* A string label: stable facts about the check ("type": "ethernet"), or, on a metric, what
 * tells one of its series from another ("queue": "spam"). */
typedef struct pw_label {
    size_t struct_size;  /* sizeof(pw_label) */
    const char *name;
    const char *value;
} pw_label;

/* A numeric metric: its name as declared (see pw_metric_info: [a-z][a-z0-9_]*, at most 64
 * bytes, "total_ms") and a finite value. Non-finite values are dropped by the host.
 *
 * Added within version 1 (a plug-in built against an older header hands the first three fields
 * only, and its metrics carry no labels and take their declared kind):
 *   labels, label_count  the series' own labels ("queue"="spam"), beside the check's: up to 8,
 *                        names [a-z_][a-z0-9_]* of at most 64 bytes, not starting "__" and not
 *                        the agent's own (probe, check, plugin, state), values of at most 256
 *                        bytes of UTF-8. Walked like pw_observation.labels. A metric over these
 *                        bounds is dropped from the observation, and the host says why.
 *   kind                 PW_METRIC_GAUGE (0) or PW_METRIC_COUNTER, for a metric not declared
 *                        ahead (one a plug-in learns at run time: a script's output); a declared
 *                        metric keeps its declaration's kind whatever this says.
 *   help                 one sentence for a metric not declared ahead, or NULL; a declaration's
 *                        help wins. At most 1,024 bytes (cut beyond).
 * One name with the same labels twice in one observation is a clash: the second is dropped,
 * naming both. One name with different labels is two series of one metric. Fill it with
 * designated initializers ({.struct_size = sizeof(pw_metric), .name = "load1", .value = v}): the
 * fields left out are zero. */
typedef struct pw_metric {
    size_t struct_size;  /* sizeof(pw_metric) */
    const char *name;
    double value;
    const pw_label *labels; /* array of label_count labels, may be NULL when 0 */
    size_t label_count;
    uint32_t kind;          /* PW_METRIC_GAUGE or PW_METRIC_COUNTER, for an undeclared metric */
    uint32_t reserved;      /* 0 */
    const char *help;       /* for an undeclared metric, or NULL */
} pw_metric;

/*
 * Metric declarations: what each metric a plug-in emits is, said once in its descriptor
 * (pw_probe_descriptor.metrics). Every exposition takes the metric's type, unit and help from
 * here: /metrics and the textfile write `# TYPE counter` and `_total` for a counter, convert the
 * value to the Prometheus base unit of `unit` (ms -> _seconds, bit/s -> _bytes_per_second,
 * % -> _ratio) and write `help` as `# HELP`; the status page plots by `plot`.
 *
 *   name   the metric's name as emitted: [a-z][a-z0-9_]*, at most 64 bytes. A name that says its
 *          unit at its end ("total_ms", "used_pct", "rx_bps") keeps its stem and takes the base
 *          unit's suffix ("total_seconds"); two declarations that would expose one series
 *          ("lat_ms" in ms and "lat_seconds" in s) are refused, naming both.
 *   kind   PW_METRIC_GAUGE (a value that goes up and down) or PW_METRIC_COUNTER (a count
 *          since the instance was created, that only grows; exposed with `_total`).
 *   unit   UCUM as OpenTelemetry writes it: "s", "ms", "us", "ns", "min", "h", "d", "By",
 *          "KiBy", "MiBy", "GiBy", "kBy", "MBy", "GBy", "By/s", "bit/s", "kbit/s", "Mbit/s",
 *          "Gbit/s", "%", "1", "/s", "Cel", "Hz", "{packet}", "{packet}/s" (any "{annotation}"
 *          alone or over "/s"); NULL or "" for a plain number. Another unit is refused.
 *   help   one sentence ("Time from the request's start to its last byte."); NULL for none.
 *   plot   which of the status page's plots shows it: PW_PLOT_NONE, PW_PLOT_LATENCY (a round
 *          trip or response time), PW_PLOT_THROUGHPUT (a rate of bits or bytes) or
 *          PW_PLOT_USAGE (a percentage of a capacity in use).
 *
 * A plug-in that declares metrics may still emit undeclared ones: they are named by their
 * suffix, as every metric of a plug-in without declarations is, and are gauges unless their
 * pw_metric says PW_METRIC_COUNTER.
 */
#define PW_METRIC_GAUGE 0u
#define PW_METRIC_COUNTER 1u

#define PW_PLOT_NONE 0u
#define PW_PLOT_LATENCY 1u
#define PW_PLOT_THROUGHPUT 2u
#define PW_PLOT_USAGE 3u

typedef struct pw_metric_info {
    size_t struct_size;  /* sizeof(pw_metric_info) */
    const char *name;    /* as emitted: [a-z][a-z0-9_]*, at most 64 bytes */
    uint32_t kind;       /* PW_METRIC_GAUGE or PW_METRIC_COUNTER */
    uint32_t plot;       /* PW_PLOT_* */
    const char *unit;    /* UCUM ("ms", "By", "bit/s", "%", "1"), or NULL */
    const char *help;    /* one sentence, or NULL */
} pw_metric_info;

/* One observation of one check. */
typedef struct pw_observation {
    size_t struct_size;        /* sizeof(pw_observation) */
    const char *key;           /* check key within the probe ("eth0", "/var"); the host
                                  publishes it as "<probe id>/<key>". Non-empty UTF-8. */
    int32_t state;             /* a pw_state */
    const char *message;       /* short human text, may be NULL */
    const pw_metric *metrics;  /* array of metric_count metrics, may be NULL when 0 */
    size_t metric_count;
    const pw_label *labels;    /* array of label_count labels, may be NULL when 0 */
    size_t label_count;
} pw_observation;

/* The host's callback for observations, handed to sample() and handle_event().
 * emit() copies the observation and returns PW_OK, or PW_ERR when the observation was
 * malformed or over a limit (see the top of this file; it is then dropped and logged by the
 * host). It is only valid during the call it was handed to: after that call returned,
 * emit() returns PW_ERR. */
typedef struct pw_emitter {
    size_t struct_size;  /* sizeof(pw_emitter) */
    void *context;       /* the host's; pass it back unchanged */
    int (*emit)(void *context, const pw_observation *observation);
} pw_emitter;

/* The host's side of one call, handed to every call that may block (create, sample,
 * handle_event): the error report the plug-in writes into host-owned buffers (both strings
 * NUL-terminated and truncated to fit), and the call's deadline, which the plug-in reads.
 *
 * Deadlines. deadline_ns is the CLOCK_MONOTONIC instant, in nanoseconds, by which the call
 * must have returned: for sample, the probe's `timeout` from when the host started the sample;
 * for create, the create timeout (the probe's timeout, at least 5 s); for handle_event, the
 * probe's timeout from now (handle_event should not block at all). Fit every wait of the call
 * (connect, DNS, ICMP replies, a stuck statvfs) inside it, keeping a little time to emit what
 * was seen: a network check that runs out of time reports its verdict (critical, "limited")
 * instead of being cut off. The host kills (process isolation) or gives up on (inline) a call
 * still running 1 s after its deadline, and says "overran its 5s deadline by more than 1s".
 * Read it with pw_call_deadline_ns(): a host built against an older header hands a shorter
 * pw_error without the field, and the helper then returns 0, as it does when the host sets no
 * deadline (0 = none): keep your own default waits then. */
typedef struct pw_error {
    size_t struct_size;  /* sizeof(pw_error), set by the host */
    char path[256];      /* JSON path within the probe's config of the offending value, e.g.
                            "targets[0].url"; "" for the config as a whole or a runtime error */
    char message[768];   /* what was wrong and what was expected; never include secrets */
    uint64_t deadline_ns; /* set by the host: CLOCK_MONOTONIC nanoseconds by which this call
                             must return; 0 = none. Read it through pw_call_deadline_ns() */
} pw_error;

/* The call's deadline (CLOCK_MONOTONIC nanoseconds), or 0 when the host set none or is older
 * than the field (its struct_size stops before it). Compare with
 * clock_gettime(CLOCK_MONOTONIC, ...) converted to nanoseconds. */
static inline uint64_t pw_call_deadline_ns(const pw_error *error) {
    if (error == NULL || error->struct_size < offsetof(pw_error, deadline_ns) + sizeof error->deadline_ns) return 0;
    return error->deadline_ns;
}

/* The descriptor: static, immutable, valid for as long as the library stays loaded. Fill it
 * with designated initializers (.name = "disk", …): it grows at its end, and a field left out
 * is zero, which every later field takes to mean "not used". */
typedef struct pw_probe_descriptor {
    uint32_t abi_version;     /* PW_PROBE_ABI_VERSION */
    uint32_t struct_size;     /* sizeof(pw_probe_descriptor) */
    const char *name;         /* plug-in name used in config ("disk"); [a-z0-9_-]+ */
    const char *version;      /* plug-in version ("1.0.0") */
    const char *description;  /* one sentence */
    uint64_t flags;           /* PW_PROBE_FLAG_* */

    /* Validate the config (JSON text of the probe's "config" object, "{}" when absent) and
     * create an instance. On success store it in *instance and return PW_OK; on failure
     * fill *error (with the JSON path of the offending value) and return PW_ERR. Return by
     * the deadline in *error (pw_call_deadline_ns). */
    int (*create)(const char *config_json, size_t config_len, void **instance, pw_error *error);

    /* Take one sample: emit one observation per check. Return PW_OK, or PW_ERR with
     * *error filled when the whole sample failed (the host then marks the probe's checks
     * unknown with that message). May block, but must return by the deadline in *error
     * (pw_call_deadline_ns). Convention: a "timeout" duration anywhere in the probe's config is
     * time this call may spend waiting (a target's timeout); the host refuses a config where one
     * is not shorter than the probe's own timeout, and the plug-in cuts its waits (defaults
     * included) to the deadline, so the plug-in's verdict always arrives in time. */
    int (*sample)(void *instance, const pw_emitter *emitter, pw_error *error);

    /* Optional (NULL when not event-driven): the file descriptor the host should watch for
     * readability. It stays owned by the instance and open until destroy(). */
    int (*event_fd)(void *instance);

    /* Optional: called when event_fd() is readable. Drain what is ready without blocking
     * and emit observations for the checks that changed. Same return rules and deadline as
     * sample(). */
    int (*handle_event)(void *instance, const pw_emitter *emitter, pw_error *error);

    /* Release everything the instance owns. */
    void (*destroy)(void *instance);

    /* Added within version 1 (a descriptor whose struct_size stops before them declares
     * nothing and works as before): the metrics the plug-in emits, an array of metric_count
     * pw_metric_info walked with its first element's struct_size. Static, like the descriptor.
     * A declaration the host cannot take (a bad name, kind or unit, a name declared twice, two
     * that would expose one series) refuses the plug-in with a reason naming it. */
    const pw_metric_info *metrics;
    size_t metric_count;
} pw_probe_descriptor;

/* The entry point's type. A plug-in defines:
 *     const pw_probe_descriptor *pathwatch_probe_entry(void) { return &my_descriptor; }  */
typedef const pw_probe_descriptor *(*pw_probe_entry_fn)(void);

#ifdef __cplusplus
}
#endif

#endif /* PATHWATCH_PROBE_H */
