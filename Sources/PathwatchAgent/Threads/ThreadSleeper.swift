import Dispatch
import Synchronization

/// A descriptor a thread watches between its jobs, and what to run when it is ready.
struct WatchedDescriptor: Sendable {
    var fd: Int32
    var onReadable: @Sendable () -> Void
    /// The descriptor was closed under the watch (poll says POLLNVAL); it is watched no more.
    var onClosed: @Sendable () -> Void
}

/// How a `SerialThread` sleeps between jobs. A plain thread waits on a semaphore. A thread that
/// watches a descriptor sleeps in poll(2) on it and on a pipe that new jobs write a byte to, and
/// serves the descriptor's readiness before it returns to its jobs.
final class ThreadSleeper: Sendable {
    private let semaphore: DispatchSemaphore?
    /// The pipe that wakes a polling sleeper (read end, write end); nil for a semaphore.
    private let wakePipe: (read: Int32, write: Int32)?
    private let watched = Mutex<WatchedDescriptor?>(nil)

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
        watched.withLock { $0 = descriptor }
        wake()
        return true
    }

    func unwatch() {
        watched.withLock { $0 = nil }
        wake()
    }

    /// Returns after a wake, or after serving the watched descriptor's readiness.
    func sleep() {
        if let semaphore {
            semaphore.wait()
            return
        }
        guard let wakePipe else { return }
        let descriptor = watched.withLock { $0 }
        var polls = [pollfd(fd: wakePipe.read, events: Int16(POLLIN), revents: 0)]
        if let descriptor { polls.append(pollfd(fd: descriptor.fd, events: Int16(POLLIN), revents: 0)) }
        guard poll(&polls, nfds_t(polls.count), -1) > 0 else { return }
        if polls[0].revents != 0 {
            var drain = [UInt8](repeating: 0, count: 64)
            while read(wakePipe.read, &drain, drain.count) > 0 {}
        }
        guard let descriptor, polls.count > 1, polls[1].revents != 0 else { return }
        if polls[1].revents & Int16(POLLNVAL) != 0 {
            // Closed under us (a plug-in that closed its own descriptor): polling it again would
            // spin; it is not watched any more.
            watched.withLock { if $0?.fd == descriptor.fd { $0 = nil } }
            descriptor.onClosed()
            return
        }
        // Unwatched since the poll began: the descriptor may be on its way to being closed.
        guard watched.withLock({ $0?.fd == descriptor.fd }) else { return }
        descriptor.onReadable()
    }
}
