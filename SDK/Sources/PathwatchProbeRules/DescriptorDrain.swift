import Glibc

/// The agent's rule for an event descriptor its plug-in does not drain, and its words, shared
/// by the agent (its DrainGuard) and ProbeTester, so a test fails on what the agent would flag.
///
/// poll(2) reports a descriptor readable for as long as it holds data; a `handle_event` that
/// returns without reading it is called again at once, for ever. The agent calls a descriptor
/// undrained when it was still readable after each of `callsBeforeThrottle` calls in a row with
/// no sign of progress (fewer bytes waiting after a call than before it, where the kernel says),
/// and those calls spanned at least a second (a storm of real events goes unready between
/// bursts); it then serves it once a second. A test drives the calls itself, as fast as it
/// likes: ProbeTester counts the calls alone.
public enum DescriptorDrain {
    /// Calls in a row that leave the descriptor readable without progress.
    public static let callsBeforeThrottle = 100

    /// The probe's `last_error` while its descriptor is undrained, and what ProbeTester throws.
    public static let problem =
        "event descriptor stays readable after handle_event: the plug-in does not drain it; served once a second"

    /// Whether `fd` is readable (or hung up) right now, and how many bytes wait in it where the
    /// kernel says (FIONREAD: pipes, FIFOs, stream sockets; nil elsewhere, an eventfd among them).
    public static func readiness(of fd: Int32) -> (readable: Bool, waiting: Int?) {
        var watch = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let readable = poll(&watch, 1, 0) == 1 && watch.revents & Int16(POLLIN | POLLHUP | POLLERR) != 0
        var waiting: Int32 = 0
        let counted = ioctl(fd, UInt(FIONREAD), &waiting) == 0
        return (readable, counted ? Int(waiting) : nil)
    }

    /// Whether a call that found `before` and left `after` made progress (fewer bytes waiting).
    public static func progressed(before: Int?, after: Int?) -> Bool {
        guard let before, let after else { return false }
        return after < before
    }
}
