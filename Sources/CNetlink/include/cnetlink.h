#include <linux/netlink.h>
#include <linux/rtnetlink.h>
