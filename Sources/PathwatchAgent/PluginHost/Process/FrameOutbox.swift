import Dispatch
import Glibc
import PathwatchBase
import Synchronization

/// Frames on their way over one socket, written by a thread of their own: a caller queues its
/// frame and goes on, and the writer sends everything queued since its last write at once. At a
/// tick, a thousand probes' calls to one child (and then their thousand answers) cross in a few
/// writes, so the reader at the other end wakes a few times, not once per frame, and no caller
/// waits for another's write under a lock. Frames go in the order they were queued.
///
/// Writing fails when the other end is gone: `failed` runs once, on the writer, and later
/// frames are dropped (the other end's death reaches the callers by its own path).
///
/// Without a thread to be had (a plug-in child whose `max_memory` leaves no room for another
/// thread's stack), each caller writes its own frame, one at a time, as all did before.
final class FrameOutbox: Sendable {
    private struct Queue {
        /// No writer thread: callers write.
        var direct = false
        var broken = false
        var chunks: [[UInt8]] = []
        /// The writer was woken, or is writing: the next frame need not wake it.
        var awake = false
        var finishing = false
        /// What runs once the frames queued before `finish` are written; the writer is gone
        /// when `finished`.
        var then: [@Sendable () -> Void] = []
        var finished = false
    }

    /// Small frames are copied together and sent in one call; one this large goes on its own
    /// (a result of thousands of observations), without a copy.
    private static let copyLimit = 64 << 10

    private let queue = Mutex(Queue())
    private let wake = DispatchSemaphore(value: 0)
    private let socket: Int32
    private let failed: @Sendable () -> Void

    init(socket: Int32, name: String, failed: @escaping @Sendable () -> Void) {
        self.socket = socket
        self.failed = failed
        let caller = pthread_self()
        let thread = SerialThread(name: name)
        thread.async { [self] in
            // Run here by the caller itself: no thread could be started.
            if pthread_equal(pthread_self(), caller) != 0 {
                queue.withLock { $0.direct = true }
            } else {
                run()
            }
        }
        thread.finish()
    }

    /// Queues one frame, made of `parts` sent back to back; false once the outbox is finishing.
    @discardableResult
    func enqueue(_ parts: [UInt8]...) -> Bool {
        let woken = queue.withLock { q -> Bool? in
            guard !q.finishing else { return nil }
            if q.direct {
                if !q.broken && !parts.allSatisfy(sendAll) {
                    q.broken = true
                    failed()
                }
                return false
            }
            q.chunks.append(contentsOf: parts)
            defer { q.awake = true }
            return !q.awake
        }
        guard let woken else { return false }
        if woken { wake.signal() }
        return true
    }

    /// No frame after those queued; `then` runs on the writer once they are written (at once,
    /// here, when the writer is already gone).
    func finish(then: @escaping @Sendable () -> Void) {
        let (woken, now) = queue.withLock { q -> (Bool, Bool) in
            if q.direct { q.finishing = true }
            if q.finished || q.direct { return (false, true) }
            q.finishing = true
            q.then.append(then)
            defer { q.awake = true }
            return (!q.awake, false)
        }
        if now { then() }
        if woken { wake.signal() }
    }

    private func run() {
        var batch: [UInt8] = []
        var broken = false
        while true {
            wake.wait()
            while true {
                let (chunks, then, done) = queue.withLock { q -> ([[UInt8]], [@Sendable () -> Void], Bool) in
                    var taken: [[UInt8]] = []
                    swap(&taken, &q.chunks)
                    guard taken.isEmpty else { return (taken, [], false) }
                    q.awake = false
                    guard q.finishing else { return ([], [], false) }
                    q.finished = true
                    defer { q.then = [] }
                    return ([], q.then, true)
                }
                if done {
                    for job in then { job() }
                    return
                }
                if chunks.isEmpty { break }
                if !broken && !write(chunks, through: &batch) {
                    broken = true
                    failed()
                }
            }
        }
    }

    /// Sends `chunks` in order: small ones gathered in `batch`, large ones as they are.
    private func write(_ chunks: [[UInt8]], through batch: inout [UInt8]) -> Bool {
        batch.removeAll(keepingCapacity: true)
        for chunk in chunks {
            if chunk.count < Self.copyLimit {
                batch.append(contentsOf: chunk)
                if batch.count < Self.copyLimit { continue }
            }
            guard sendAll(batch) else { return false }
            batch.removeAll(keepingCapacity: true)
            if chunk.count >= Self.copyLimit, !sendAll(chunk) { return false }
        }
        return sendAll(batch)
    }

    private func sendAll(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { all in
            var offset = 0
            while offset < all.count {
                let n = send(socket, all.baseAddress! + offset, all.count - offset, Int32(MSG_NOSIGNAL))
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else { return false }
                offset += n
            }
            return true
        }
    }
}
