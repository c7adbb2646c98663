import Dispatch
import Glibc
import Synchronization

/// A descriptor a thread watches between its jobs, and what to run when it is ready.
struct WatchedDescriptor: Sendable {
    var fd: Int32
    var onReadable: @Sendable () -> Void
    /// The descriptor was closed under the watch (poll says POLLNVAL); it is watched no more.
    var onClosed: @Sendable () -> Void
    /// When set, the descriptor is guarded against a handler that does not drain it (DrainGuard):
    /// told when it is throttled and when it is released.
    var onUndrained: (@Sendable (DrainGuard.Change) -> Void)?
}

/// How a `SerialThread` sleeps between jobs. A plain thread waits on a semaphore. A thread that
/// watches a descriptor sleeps in poll(2) on it and on a pipe that new jobs write a byte to, and
/// serves the descriptor's readiness before it returns to its jobs. A guarded descriptor that
/// stays readable after its handler returns is served once a second instead (DrainGuard).
final class ThreadSleeper: Sendable {
    private let semaphore: DispatchSemaphore?
    /// The pipe that wakes a polling sleeper (read end, write end); nil for a semaphore.
    private let wakePipe: (read: Int32, write: Int32)?
    private let watched = Mutex<WatchedDescriptor?>(nil)
    /// The watched descriptor's guard; a new watch starts a new one.
    private let drain = Mutex(DrainGuard())

    private init(semaphore: DispatchSemaphore?, wakePipe: (read: Int32, write: Int32)?) {
        self.semaphore = semaphore
        self.wakePipe = wakePipe
    }

    static func waiting() -> ThreadSleeper { ThreadSleeper(semaphore: DispatchSemaphore(value: 0), wakePipe: nil) }

    /// A sleeper that can watch a descriptor; a semaphore if no pipe can be had (the process is
    /// out of descriptors), which then refuses to watch.
    static func polling() -> ThreadSleeper {
        guard let pipe = makePipe(nonBlocking: true) else { return waiting() }
        return ThreadSleeper(semaphore: nil, wakePipe: pipe)
    }

    deinit {
        if let wakePipe {
            close(wakePipe.read)
            close(wakePipe.write)
        }
    }

    func wake() {
        if let semaphore {
            semaphore.signal()
        } else if let wakePipe {
            // A full pipe already holds a wake-up: a failed write loses nothing.
            var byte: UInt8 = 1
            _ = write(wakePipe.write, &byte, 1)
        }
    }

    func watch(_ descriptor: WatchedDescriptor) -> Bool {
        guard wakePipe != nil else { return false }
        watched.withLock { w in
            drain.withLock { $0 = DrainGuard() }
            w = descriptor
        }
        wake()
        return true
    }

    func unwatch() {
        watched.withLock { $0 = nil }
        wake()
    }

    /// Returns after a wake, or after serving the watched descriptor's readiness (or, while it
    /// is throttled, after its next turn is due).
    func sleep() {
        if let semaphore {
            semaphore.wait()
            return
        }
        guard let wakePipe else { return }
        let descriptor = watched.withLock { $0 }
        // A throttled descriptor is left out of the poll (it would wake it at once): the poll
        // waits for a job or for the descriptor's next turn.
        let throttledUntil = descriptor?.onUndrained == nil ? nil : drain.withLock { $0.throttled ? $0.nextServe : nil }
        var polls = [pollfd(fd: wakePipe.read, events: Int16(POLLIN), revents: 0)]
        if let descriptor, throttledUntil == nil {
            polls.append(pollfd(fd: descriptor.fd, events: Int16(POLLIN), revents: 0))
        }
        let wait =
            throttledUntil.map { Int32(clamping: max(0, ($0 - Int64(monotonicNanoseconds()) + 999_999) / 1_000_000)) }
            ?? -1
        guard poll(&polls, nfds_t(polls.count), wait) >= 0 else { return }
        if polls[0].revents != 0 {
            var drain = [UInt8](repeating: 0, count: 64)
            while read(wakePipe.read, &drain, drain.count) > 0 {}
        }
        guard let descriptor else { return }
        if let throttledUntil {
            if Int64(monotonicNanoseconds()) >= throttledUntil { serveThrottled(descriptor) }
            return
        }
        guard polls.count > 1, polls[1].revents != 0 else { return }
        if polls[1].revents & Int16(POLLNVAL) != 0 {
            closed(descriptor)
            return
        }
        // Unwatched since the poll began: the descriptor may be on its way to being closed.
        guard watched.withLock({ $0?.fd == descriptor.fd }) else { return }
        serve(descriptor)
    }

    /// Closed under us (a plug-in that closed its own descriptor): polling it again would spin;
    /// it is not watched any more.
    private func closed(_ descriptor: WatchedDescriptor) {
        watched.withLock { if $0?.fd == descriptor.fd { $0 = nil } }
        descriptor.onClosed()
    }

    /// Runs the handler; for a guarded descriptor, then tells its guard whether the descriptor is
    /// still readable and whether the call made progress.
    private func serve(_ descriptor: WatchedDescriptor) {
        guard let onUndrained = descriptor.onUndrained else {
            descriptor.onReadable()
            return
        }
        let before = Self.queuedBytes(descriptor.fd)
        descriptor.onReadable()
        let after = Self.queuedBytes(descriptor.fd)
        let readiness = readReadiness(descriptor.fd)
        // Closed by the handler: the next poll says so.
        guard readiness & Int16(POLLNVAL) == 0 else { return }
        let progressed = before.flatMap { b in after.map { $0 < b } } ?? false
        let change = watched.withLock { w -> DrainGuard.Change? in
            guard w?.fd == descriptor.fd else { return nil }
            return drain.withLock {
                $0.served(stillReadable: readiness != 0, progressed: progressed, at: Int64(monotonicNanoseconds()))
            }
        }
        if let change { onUndrained(change) }
    }

    /// A throttled descriptor's turn: served if it is still readable, released if it is not.
    private func serveThrottled(_ descriptor: WatchedDescriptor) {
        let readiness = readReadiness(descriptor.fd)
        if readiness & Int16(POLLNVAL) != 0 {
            closed(descriptor)
            return
        }
        guard readiness == 0 else {
            if watched.withLock({ $0?.fd == descriptor.fd }) { serve(descriptor) }
            return
        }
        let change = watched.withLock { w -> DrainGuard.Change? in
            guard w?.fd == descriptor.fd else { return nil }
            return drain.withLock { $0.foundUnready() }
        }
        if let change { descriptor.onUndrained?(change) }
    }

    /// How many bytes wait to be read, where the kernel says (FIONREAD: pipes, FIFOs, stream
    /// sockets); nil where it does not (an eventfd, a netlink socket).
    private static func queuedBytes(_ fd: Int32) -> Int32? {
        var count: Int32 = 0
        return ioctl(fd, UInt(FIONREAD), &count) == 0 ? count : nil
    }
}
