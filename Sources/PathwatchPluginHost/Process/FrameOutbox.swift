import PathwatchSinkKit
import Synchronization

/// Frames on their way over one socket from many threads, sent in the order they were queued.
/// The caller that finds no write in progress writes, and goes on writing what others queue
/// meanwhile, gathered into as few writes as it can; the others only queue. At a tick, a
/// thousand probes' calls to one child (and then their thousand answers) cross in a few
/// writes, so the reader at the other end wakes a few times, not once per frame; no thread is
/// added to do it, so an idle agent wakes no more than before, and a child whose `max_memory`
/// leaves no room for another thread's stack needs none.
///
/// Writing fails when the other end is gone: `failed` runs once, and later frames are dropped
/// (the other end's death reaches the callers by its own path).
package final class FrameOutbox: Sendable {
    private struct Queue {
        var chunks: [[UInt8]] = []
        /// A caller is writing: the next frame need only be queued.
        var writing = false
        var broken = false
        var finishing = false
        /// What runs once the frames queued before `finish` are written.
        var then: [@Sendable () -> Void] = []
    }

    /// Small frames are copied together and sent in one call; one this large goes on its own
    /// (a result of thousands of observations), without a copy.
    private static let copyLimit = 64 << 10

    private let queue = Mutex(Queue())
    private let socket: Int32
    private let failed: @Sendable () -> Void

    package init(socket: Int32, failed: @escaping @Sendable () -> Void) {
        self.socket = socket
        self.failed = failed
    }

    /// Queues one frame, made of `parts` sent back to back, and writes it (with whatever else is
    /// queued) unless another caller is writing; false once the outbox is finishing.
    @discardableResult
    package func enqueue(_ parts: [UInt8]...) -> Bool {
        let writer = queue.withLock { q -> Bool? in
            guard !q.finishing else { return nil }
            q.chunks.append(contentsOf: parts)
            if q.writing { return false }
            q.writing = true
            return true
        }
        guard let writer else { return false }
        if writer { drain() }
        return true
    }

    /// No frame after those queued; `then` runs once they are written (at once, here, when
    /// no write is in progress).
    package func finish(then: @escaping @Sendable () -> Void) {
        let now = queue.withLock { q -> Bool in
            q.finishing = true
            if q.writing { q.then.append(then) }
            return !q.writing
        }
        if now { then() }
    }

    /// Writes until nothing is queued, then lets the next caller write.
    private func drain() {
        var batch: [UInt8] = []
        while true {
            let (chunks, broken, then) = queue.withLock { q -> ([[UInt8]], Bool, [@Sendable () -> Void]) in
                var taken: [[UInt8]] = []
                swap(&taken, &q.chunks)
                if taken.isEmpty {
                    q.writing = false
                    defer { q.then = [] }
                    return ([], q.broken, q.then)
                }
                return (taken, q.broken, [])
            }
            if chunks.isEmpty {
                for job in then { job() }
                return
            }
            if !broken && !write(chunks, through: &batch) {
                queue.withLock { $0.broken = true }
                failed()
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
        bytes.withUnsafeBytes { Frames.writeAll(socket, $0) }
    }
}
