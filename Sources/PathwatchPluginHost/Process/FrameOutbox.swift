import PathwatchBase
import PathwatchSinkKit
import Synchronization

/// Frames on their way over one socket from many threads, sent in the order they were queued.
/// The caller that finds no write in progress writes, and goes on writing what others queue
/// meanwhile, gathered into as few writes as it can; the others only queue. Frames that find a
/// write in progress go with it, so the reader at the other end wakes less than once per frame;
/// no thread is added to do it, so an idle agent wakes no more than before, and a child whose
/// `max_memory` leaves no room for another thread's stack needs none.
///
/// A frame may also be held (`enqueueHeld`): queued without a write of its own, it goes with the
/// next frame written. Once the first frame held is `holdNanoseconds` old, the next frame held
/// writes them all, and a timer does so when none comes. At a tick, a thousand probes' calls
/// leave their lanes one at a time, and a child's instances answer one at a time as its lanes
/// finish: most found no write in progress and went alone (2,000 calls in 1,080–1,260 writes,
/// their answers in 1,430–1,740, each a wake-up of the reader at the other end). Held while
/// sibling calls are in flight (SharedChild) or still run (ChildInstances), they cross in tens
/// of writes or fewer. The bound is what a hung sibling can delay the others' frames by.
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
        /// When the oldest frame held and not yet taken by a write was queued (monotonic ns).
        var heldSince: UInt64?
        /// What runs once the frames queued before `finish` are written.
        var then: [@Sendable () -> Void] = []
    }

    /// Small frames are copied together and sent in one call; one this large goes on its own
    /// (a result of thousands of observations), without a copy.
    private static let copyLimit = 64 << 10

    private let queue = Mutex(Queue())
    private let socket: Int32
    private let failed: @Sendable () -> Void
    /// How long a held frame may wait for a write to go with.
    private let holdNanoseconds: UInt64
    /// Where a held frame's own write runs when its time is up: never on the timer thread, which
    /// a write to a full socket would hold.
    private let flushLane: WorkLane

    /// `holdNanoseconds`: how long `enqueueHeld` may keep a frame back (a millisecond: at a
    /// tick, a child's two lanes answer some tens of calls in it).
    package init(socket: Int32, holdNanoseconds: UInt64 = 1_000_000, failed: @escaping @Sendable () -> Void) {
        self.socket = socket
        self.failed = failed
        self.holdNanoseconds = holdNanoseconds
        flushLane = WorkerPool.shared.lane()
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

    /// Queues one frame to go with the next write: one in progress, the next `enqueue`, or the
    /// next `enqueueHeld` once the first frame held is `holdNanoseconds` old, or a timer then
    /// when none comes; false once the outbox is finishing.
    @discardableResult
    package func enqueueHeld(_ parts: [UInt8]...) -> Bool {
        let now = monotonicNanoseconds()
        let step = queue.withLock { q -> HeldStep? in
            guard !q.finishing else { return nil }
            q.chunks.append(contentsOf: parts)
            if q.writing { return .queued }
            guard let since = q.heldSince else {
                q.heldSince = now
                return .firstHeld
            }
            guard now &- since >= holdNanoseconds else { return .queued }
            q.writing = true
            return .write
        }
        switch step {
        case nil: return false
        case .queued?: break
        case .write?: drain()
        case .firstHeld?:
            // Fires only when no frame comes to write them first (a hung sibling, the tick's
            // last answers): the write runs on a lane, never on the timer thread, which a full
            // socket would hold.
            TimerThread.shared.schedule(afterNanoseconds: holdNanoseconds) { [self] in
                flushLane.async { [self] in flushHeld() }
            }
        }
        return true
    }

    private enum HeldStep { case queued, firstHeld, write }

    /// Writes what is held, unless a write is in progress (which takes it) or nothing is left.
    private func flushHeld() {
        let writer = queue.withLock { q -> Bool in
            guard !q.writing, !q.chunks.isEmpty else { return false }
            q.writing = true
            return true
        }
        if writer { drain() }
    }

    /// No frame after those queued; `then` runs once they are written (at once, here, when
    /// nothing is queued and no write is in progress; held frames are written first, here).
    package func finish(then: @escaping @Sendable () -> Void) {
        let step = queue.withLock { q -> FinishStep in
            q.finishing = true
            if q.writing {
                q.then.append(then)
                return .afterTheWriter
            }
            if q.chunks.isEmpty { return .now }
            q.writing = true
            q.then.append(then)
            return .writeHeld
        }
        switch step {
        case .now: then()
        case .writeHeld: drain()
        case .afterTheWriter: break
        }
    }

    private enum FinishStep { case now, writeHeld, afterTheWriter }

    /// Writes until nothing is queued, then lets the next caller write.
    private func drain() {
        var batch: [UInt8] = []
        while true {
            let (chunks, broken, then) = queue.withLock { q -> ([[UInt8]], Bool, [@Sendable () -> Void]) in
                var taken: [[UInt8]] = []
                swap(&taken, &q.chunks)
                // What was held goes now: the next frame held starts its own wait.
                q.heldSince = nil
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
