/* The peer for the bandwidth benchmark: what collectd's interface plug-in does each interval on
 * Linux — getifaddrs(3), whose AF_PACKET entries carry every interface's counters (glibc fills
 * them from one RTM_GETLINK netlink dump) — timed the same way as sample_cost.c: thread CPU time
 * of each call, median over the iterations.
 * Usage: peer_getifaddrs ITERATIONS  → prints "interfaces median_us"  */
#include <ifaddrs.h>
#include <linux/if_link.h>
#include <netpacket/packet.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <time.h>

static double now_us(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    int iterations = argc > 1 ? atoi(argv[1]) : 100;
    if (iterations < 1) iterations = 1;
    double *cpu = calloc((size_t)iterations, sizeof *cpu);
    if (!cpu) return 1;
    int interfaces = 0;
    unsigned long long sink = 0;
    for (int i = 0; i < iterations; i++) {
        double start = now_us();
        struct ifaddrs *list = NULL;
        if (getifaddrs(&list) != 0) { perror("getifaddrs"); return 1; }
        int count = 0;
        for (struct ifaddrs *a = list; a; a = a->ifa_next) {
            if (!a->ifa_addr || a->ifa_addr->sa_family != AF_PACKET || !a->ifa_data) continue;
            const struct rtnl_link_stats *s = a->ifa_data;
            sink += s->rx_bytes + s->tx_bytes + s->rx_packets + s->tx_packets;
            count++;
        }
        freeifaddrs(list);
        cpu[i] = now_us() - start;
        interfaces = count;
    }
    qsort(cpu, (size_t)iterations, sizeof *cpu, cmp);
    printf("%d %.0f\n", interfaces, cpu[iterations / 2]);
    return sink == 42 ? 2 : 0; /* keeps the loop from being optimised away */
}
