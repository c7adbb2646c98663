/*
 * Times sampling rounds of a probe plug-in through the plug-in ABI alone, the way the agent
 * calls it: dlopen, create with the probe's config JSON, then sample() N times.
 *
 *   round <plugin.so> <config.json> <rounds>
 *
 * The config file holds the probe's own `config` object. Prints one line per round:
 * "create <milliseconds>", then "round <i> <milliseconds> <observations> <ok>" per round, then
 * "peak_rss_kib <n>".
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "pathwatch_probe.h"

struct tally { int observations; int ok; };

static int count(void *context, const pw_observation *observation) {
    struct tally *t = context;
    t->observations++;
    if (observation->state == PW_STATE_OK) t->ok++;
    return PW_OK;
}

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int main(int argc, char **argv) {
    if (argc != 4) { fprintf(stderr, "usage: %s plugin.so config.json rounds\n", argv[0]); return 2; }
    void *library = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!library) { fprintf(stderr, "dlopen: %s\n", dlerror()); return 1; }
    pw_probe_entry_fn entry = (pw_probe_entry_fn)dlsym(library, PW_PROBE_ENTRY_SYMBOL);
    if (!entry) { fprintf(stderr, "no entry symbol\n"); return 1; }
    const pw_probe_descriptor *probe = entry();

    FILE *file = fopen(argv[2], "rb");
    if (!file) { perror(argv[2]); return 1; }
    fseek(file, 0, SEEK_END);
    long length = ftell(file);
    rewind(file);
    char *json = malloc((size_t)length);
    if (!json || fread(json, 1, (size_t)length, file) != (size_t)length) { fprintf(stderr, "cannot read config\n"); return 1; }
    fclose(file);

    pw_error error = { .struct_size = sizeof error };
    void *instance = NULL;
    double created = now_ms();
    if (probe->create(json, (size_t)length, &instance, &error) != PW_OK) {
        fprintf(stderr, "create failed: %s: %s\n", error.path, error.message);
        return 1;
    }
    printf("create %.1f\n", now_ms() - created);
    int rounds = atoi(argv[3]);
    for (int i = 1; i <= rounds; i++) {
        struct tally tally = { 0, 0 };
        pw_emitter emitter = { .struct_size = sizeof emitter, .context = &tally, .emit = count };
        double start = now_ms();
        if (probe->sample(instance, &emitter, &error) != PW_OK) { fprintf(stderr, "sample failed: %s\n", error.message); return 1; }
        printf("round %d %.1f %d %d\n", i, now_ms() - start, tally.observations, tally.ok);
    }
    /* Proportional set size with the instance alive: what the probe holds between samples. */
    FILE *rollup = fopen("/proc/self/smaps_rollup", "r");
    char line[256];
    while (rollup && fgets(line, sizeof line, rollup)) {
        long kib;
        if (sscanf(line, "Pss: %ld kB", &kib) == 1) printf("pss_kib %ld\n", kib);
    }
    if (rollup) fclose(rollup);
    probe->destroy(instance);
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    printf("peak_rss_kib %ld\n", usage.ru_maxrss);
    free(json);
    return 0;
}
