/* recvmmsg(2) is a GNU extension, which Swift's Glibc module does not declare: it is called from
 * here, in a file of its own feature set. */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include "cnetlink.h"

int pw_netlink_receive_batch(int fd, void *buffers, size_t slot_size, unsigned int count,
                             struct pw_netlink_datagram *datagrams) {
    if (count > PW_NETLINK_BATCH_MAX) count = PW_NETLINK_BATCH_MAX;
    struct mmsghdr messages[PW_NETLINK_BATCH_MAX];
    struct iovec vectors[PW_NETLINK_BATCH_MAX];
    struct sockaddr_nl senders[PW_NETLINK_BATCH_MAX];
    memset(messages, 0, sizeof(messages[0]) * count);
    for (unsigned int i = 0; i < count; i++) {
        vectors[i].iov_base = (char *)buffers + i * slot_size;
        vectors[i].iov_len = slot_size;
        messages[i].msg_hdr.msg_name = &senders[i];
        messages[i].msg_hdr.msg_namelen = sizeof(senders[i]);
        messages[i].msg_hdr.msg_iov = &vectors[i];
        messages[i].msg_hdr.msg_iovlen = 1;
    }
    int received;
    do {
        received = recvmmsg(fd, messages, count, MSG_DONTWAIT, NULL);
    } while (received < 0 && errno == EINTR);
    for (int i = 0; i < received; i++) {
        datagrams[i].length = messages[i].msg_len;
        datagrams[i].truncated = (messages[i].msg_hdr.msg_flags & MSG_TRUNC) != 0;
        datagrams[i].sender_port = senders[i].nl_pid;
    }
    return received;
}
