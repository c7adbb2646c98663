/*
 * cnetlink.h — the Linux rtnetlink headers, for Swift.
 *
 * The structs and constants come straight from the kernel's UAPI headers. Swift imports the
 * plain #define and enum constants; the function-like macros (NLMSG_ALIGN, RTA_OK, ...) are
 * deliberately not wrapped: PathwatchNetlink walks messages itself, with bounds checks that
 * those macros do not make. The one function, pw_netlink_receive_batch, wraps recvmmsg(2),
 * which Swift cannot see (cnetlink.c).
 */
#ifndef PATHWATCH_CNETLINK_H
#define PATHWATCH_CNETLINK_H

#include <sys/socket.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/if_link.h>
#include <linux/if_addr.h>
#include <linux/if_arp.h>
#include <linux/if.h>
#include <stddef.h>
#include <stdint.h>

/* The most datagrams pw_netlink_receive_batch takes in one call. */
#define PW_NETLINK_BATCH_MAX 16

/* One datagram received by pw_netlink_receive_batch. */
struct pw_netlink_datagram {
    size_t length;         /* bytes in its slot */
    int truncated;         /* it was longer than its slot (MSG_TRUNC) */
    uint32_t sender_port;  /* 0 for the kernel */
};

/* Receives up to `count` (at most PW_NETLINK_BATCH_MAX) waiting datagrams in one recvmmsg(2),
 * without blocking: datagram i into buffers + i * slot_size. Returns how many, or -1 with errno
 * (EAGAIN when none is waiting; interrupted calls are retried). */
int pw_netlink_receive_batch(int fd, void *buffers, size_t slot_size, unsigned int count,
                             struct pw_netlink_datagram *datagrams);

#endif /* PATHWATCH_CNETLINK_H */
