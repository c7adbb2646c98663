/*
 * cnetlink.h — the Linux rtnetlink headers, for Swift.
 *
 * The structs and constants come straight from the kernel's UAPI headers. Swift imports the
 * plain #define and enum constants; the function-like macros (NLMSG_ALIGN, RTA_OK, ...) are
 * deliberately not wrapped: PathwatchNetlink walks messages itself, with bounds checks that
 * those macros do not make.
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

#endif /* PATHWATCH_CNETLINK_H */
