import CLinkStateEvents
import PathwatchProbeKit

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// One descriptor that is readable whenever one of its members is: an epoll set. The plug-in
/// ABI lets a probe hand the host a single event descriptor; the linkstate probe listens to two
/// (its rtnetlink socket and the timer of its deferred speed reads), so it hands over this set.
/// The host only polls it; the probe, once called, asks each member itself.
final class EventSet {
    let fileDescriptor: Int32

    /// A set watching `members` for readability (level-triggered: a member left unread keeps
    /// the set readable, so nothing is lost between calls).
    init(watching members: [Int32]) throws(ProbeSampleError) {
        let fd = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard fd >= 0 else { throw ProbeSampleError("cannot create an epoll set: \(systemErrorText(errno))") }
        for member in members {
            var event = epoll_event()
            event.events = EPOLLIN.rawValue
            event.data.fd = member
            guard epoll_ctl(fd, EPOLL_CTL_ADD, member, &event) == 0 else {
                let code = errno
                close(fd)
                throw ProbeSampleError("cannot watch descriptor \(member) in an epoll set: \(systemErrorText(code))")
            }
        }
        fileDescriptor = fd
    }

    deinit { close(fileDescriptor) }
}
