/*
 * sample_cost.c — measures the CPU time of one sample of a Pathwatch probe plug-in.
 *
 * Loads the plug-in through its public C ABI exactly as the agent does (dlopen, the entry
 * symbol, create, sample, destroy), takes a few warm-up samples so that every interface has a
 * baseline and later samples compute real rates, then times each further sample with
 * CLOCK_THREAD_CPUTIME_ID: user plus system time of this thread, which includes the kernel's
 * work for the netlink dump or the /proc and /sys reads, since those run in our system calls.
 * The emitter only counts observations, so the figure is the plug-in's cost, not a sink's.
 *
 * The second warm-up sample is reported on its own: it is the first with rates, so it also reads
 * every interface's link speed from sysfs, which later samples take from the plug-in's cache
 * (refreshed every 10 s per interface). Its cost is what a refresh costs.
 *
 * usage: sample_cost PLUGIN.so CONFIG_JSON ITERATIONS
 * prints one line:
 *   observations cpu_median_us cpu_p90_us cpu_mean_us wall_median_us rusage_mean_us cpu_speed_refresh_us
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "pathwatch_probe.h"

static int count_observation(void *context, const pw_observation *observation) {
    (void)observation;
    (*(size_t *)context)++;
    return PW_OK;
}

static double now_us(clockid_t clock) {
    struct timespec t;
    clock_gettime(clock, &t);
    return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

static double rusage_us(void) {
    struct rusage r;
    getrusage(RUSAGE_SELF, &r);
    return (double)(r.ru_utime.tv_sec + r.ru_stime.tv_sec) * 1e6 + (double)(r.ru_utime.tv_usec + r.ru_stime.tv_usec);
}

static int by_value(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: %s PLUGIN.so CONFIG_JSON ITERATIONS\n", argv[0]);
        return 2;
    }
    int iterations = atoi(argv[3]);
    if (iterations < 1) {
        fprintf(stderr, "ITERATIONS must be at least 1\n");
        return 2;
    }
    void *library = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        fprintf(stderr, "dlopen: %s\n", dlerror());
        return 1;
    }
    pw_probe_entry_fn entry = (pw_probe_entry_fn)dlsym(library, PW_PROBE_ENTRY_SYMBOL);
    if (!entry) {
        fprintf(stderr, "no %s symbol\n", PW_PROBE_ENTRY_SYMBOL);
        return 1;
    }
    const pw_probe_descriptor *probe = entry();
    if (probe->abi_version != PW_PROBE_ABI_VERSION) {
        fprintf(stderr, "ABI version %u, expected %u\n", probe->abi_version, PW_PROBE_ABI_VERSION);
        return 1;
    }

    pw_error error;
    memset(&error, 0, sizeof error);
    error.struct_size = sizeof error;
    void *instance = NULL;
    if (probe->create(argv[2], strlen(argv[2]), &instance, &error) != PW_OK) {
        fprintf(stderr, "create: %s: %s\n", error.path, error.message);
        return 1;
    }

    size_t observations = 0;
    pw_emitter emitter = {sizeof emitter, &observations, count_observation};
    double refresh = 0;
    for (int i = 0; i < 3; i++) {
        double c0 = now_us(CLOCK_THREAD_CPUTIME_ID);
        if (probe->sample(instance, &emitter, &error) != PW_OK) {
            fprintf(stderr, "sample: %s\n", error.message);
            return 1;
        }
        if (i == 1) refresh = now_us(CLOCK_THREAD_CPUTIME_ID) - c0;
    }

    double *cpu = calloc((size_t)iterations, sizeof *cpu);
    double *wall = calloc((size_t)iterations, sizeof *wall);
    double rusage_start = rusage_us();
    for (int i = 0; i < iterations; i++) {
        observations = 0;
        double c0 = now_us(CLOCK_THREAD_CPUTIME_ID), w0 = now_us(CLOCK_MONOTONIC);
        int status = probe->sample(instance, &emitter, &error);
        cpu[i] = now_us(CLOCK_THREAD_CPUTIME_ID) - c0;
        wall[i] = now_us(CLOCK_MONOTONIC) - w0;
        if (status != PW_OK) {
            fprintf(stderr, "sample: %s\n", error.message);
            return 1;
        }
    }
    double rusage_mean = (rusage_us() - rusage_start) / iterations;

    double sum = 0;
    for (int i = 0; i < iterations; i++) sum += cpu[i];
    qsort(cpu, (size_t)iterations, sizeof *cpu, by_value);
    qsort(wall, (size_t)iterations, sizeof *wall, by_value);
    printf("%zu %.0f %.0f %.0f %.0f %.0f %.0f\n", observations, cpu[iterations / 2], cpu[(iterations * 9) / 10],
           sum / iterations, wall[iterations / 2], rusage_mean, refresh);

    probe->destroy(instance);
    free(cpu);
    free(wall);
    return 0;
}
