/*
 * linkstate_events.h — epoll and timerfd, for Swift.
 *
 * Swift's Glibc module does not import <sys/epoll.h> or <sys/timerfd.h>. The linkstate probe
 * joins its rtnetlink socket and a timer (the deferred link speed read) in one epoll set, the
 * one descriptor the plug-in ABI lets it hand the host.
 */
#ifndef LINKSTATE_EVENTS_H
#define LINKSTATE_EVENTS_H

#include <sys/epoll.h>
#include <sys/timerfd.h>

#endif /* LINKSTATE_EVENTS_H */
