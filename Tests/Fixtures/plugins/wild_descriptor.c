/* A plug-in whose descriptor is wrong in the ways that would make a host that trusts it read
 * or call memory that is not there, for the descriptor check's tests. Built with cc against
 * the ABI header alone. Every field but the one a knob spoils is valid.
 *
 * Compile-time knob -DWILD=N, one of
 *   1  name is a pointer into no mapping
 *   2  metrics is NULL but metric_count is 2
 *   3  metric_count is SIZE_MAX (metrics is a valid table of one)
 *   4  name is "wild" with no terminating NUL, at the very end of a readable page whose next
 *      page is not readable
 *   5  metrics[0].help is a pointer into no mapping
 *   6  the entry point returns a pointer into no mapping
 *   7  sample is a pointer into memory that is readable but not code (the descriptor itself)
 *   8  description is a pointer into no mapping
 *   9  nothing is wrong, but version and description hold ESC and RLO (U+202E): text a listing
 *      must not send to a terminal as it is
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "pathwatch_probe.h"

#ifndef WILD
#define WILD 1
#endif

/* Below every mapping the kernel makes (mmap_min_addr) and never a mapping of its own. */
#define NOWHERE ((const char *)(uintptr_t)0x10)

static int wd_create(const char *json, size_t len, void **out, pw_error *e) {
    (void)json; (void)len; (void)e;
    *out = malloc(1);
    return *out ? PW_OK : PW_ERR;
}

static int wd_sample(void *instance, const pw_emitter *emitter, pw_error *e) {
    (void)instance; (void)emitter; (void)e;
    return PW_OK;
}

static void wd_destroy(void *instance) { free(instance); }

static pw_metric_info declared[] = {
    {.struct_size = sizeof(pw_metric_info), .name = "value", .kind = PW_METRIC_GAUGE, .plot = PW_PLOT_NONE,
     .unit = NULL, .help = "A value."},
};

static pw_probe_descriptor descriptor = {
    .abi_version = PW_PROBE_ABI_VERSION,
    .struct_size = sizeof(pw_probe_descriptor),
    .name = "wild",
    .version = "1.0.0",
    .description = "A descriptor with one bad field.",
    .create = wd_create,
    .sample = wd_sample,
    .destroy = wd_destroy,
    .metrics = declared,
    .metric_count = 1,
};

/* "wild" without its NUL, ending where readable memory does. */
static const char *unterminated_name(void) {
    long page = sysconf(_SC_PAGESIZE);
    char *pages = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (pages == MAP_FAILED) return NULL;
    memcpy(pages + page - 4, "wild", 4);
    mprotect(pages + page, page, PROT_NONE);
    return pages + page - 4;
}

const pw_probe_descriptor *pathwatch_probe_entry(void) {
    switch (WILD) {
    case 1: descriptor.name = NOWHERE; break;
    case 2: descriptor.metrics = NULL; descriptor.metric_count = 2; break;
    case 3: descriptor.metric_count = SIZE_MAX; break;
    case 4: descriptor.name = unterminated_name(); break;
    case 5: declared[0].help = NOWHERE; break;
    case 6: return (const pw_probe_descriptor *)(uintptr_t)0x20;
    case 7: descriptor.sample = (int (*)(void *, const pw_emitter *, pw_error *))(void *)&descriptor; break;
    case 8: descriptor.description = NOWHERE; break;
    case 9:
        descriptor.version = "1.0\x1b[31m";
        descriptor.description = "A description \xe2\x80\xae reversed \x1b]0;title\x07.";
        break;
    }
    return &descriptor;
}
