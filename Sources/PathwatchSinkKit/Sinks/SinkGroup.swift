import ServiceLifecycle
import Synchronization

/// The agent's sinks as one service of its service group, each sink a service run inside it.
/// A ServiceGroup's services are fixed when it starts, and sinks come and go with reloads, so
/// the agent hands them to this group instead: `join` as it starts them, `leave` once a reload
/// has closed them.
///
/// Put before the agent's own service, it is shut down after the agent stopped its probes (a
/// group shuts its services down in reverse order), so nothing is submitted while the sinks
/// deliver what they hold. They do so side by side: a stop waits for the slowest sink's drain,
/// not for the sum of every sink's.
package final class SinkGroup: Service {
    /// How long each sink may take at shutdown to deliver what it holds.
    package static let drainSeconds: Double = 5

    private enum Change: Sendable {
        case join(any Sink)
        case leave(ObjectIdentifier)
    }

    /// A sink the group runs: whether a reload closed it, and the stream whose end says so.
    private final class Member: Sendable {
        let sink: any Sink
        let left = Atomic<Bool>(false)
        let departure: AsyncStream<Void>
        private let depart: AsyncStream<Void>.Continuation

        init(_ sink: any Sink) {
            self.sink = sink
            (departure, depart) = AsyncStream.makeStream()
        }

        func leave() {
            left.store(true, ordering: .releasing)
            depart.finish()
        }
    }

    private let changes: AsyncStream<Change>
    private let continuation: AsyncStream<Change>.Continuation
    private let running = Atomic<Int>(0)
    private let stopAsked = Mutex<UInt64?>(nil)

    /// How many sinks are being run now: those that joined (counted as their join is applied,
    /// before their run begins), less those whose run ended (they left or finished).
    package var serving: Int { running.load(ordering: .relaxed) }

    package init() {
        (changes, continuation) = AsyncStream.makeStream()
    }

    /// Sinks the agent started.
    package func join(_ sinks: [any Sink]) {
        for sink in sinks { continuation.yield(.join(sink)) }
    }

    /// The agent was asked to stop at `instant` (its monotonic clock): a line in progress at the
    /// drain is finished within its time counted from then, so the whole stop stays inside the
    /// service unit's TimeoutStopSec however long the probes took to stop.
    package func stopAsked(at instant: UInt64) {
        stopAsked.withLock { $0 = $0 ?? instant }
    }

    /// Sinks a reload replaced and closed: their services end without a drain.
    package func leave(_ sinks: [any Sink]) {
        for sink in sinks { continuation.yield(.leave(ObjectIdentifier(sink))) }
    }

    /// Runs every sink that joined until the group shuts down; returns once each has drained
    /// and closed. Changes already handed over are applied before the end, so a sink that
    /// joined just before a shutdown drains too.
    package func run() async throws {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { [continuation] in
                // On shutdown (or cancellation), end the changes after those already queued.
                try? await gracefulShutdown()
                continuation.finish()
            }
            var members: [ObjectIdentifier: Member] = [:]
            for await change in changes {
                switch change {
                case .join(let sink):
                    let member = Member(sink)
                    members[ObjectIdentifier(sink)] = member
                    running.add(1, ordering: .relaxed)
                    group.addTask { await self.serve(member) }
                case .leave(let id):
                    members.removeValue(forKey: id)?.leave()
                }
            }
        }
    }

    /// Runs the member's sink as a service until it returns (it drained after a shutdown) or it
    /// leaves (a reload closed it), whichever comes first; leaving cancels its run. One that
    /// left before its run began, or before the shutdown reached it, is neither drained nor
    /// closed again.
    private func serve(_ member: Member) async {
        defer { running.subtract(1, ordering: .relaxed) }
        guard !member.left.load(ordering: .acquiring) else { return }
        await withTaskGroup(of: Void.self) { race in
            race.addTask {
                try? await member.sink.run(
                    unless: { member.left.load(ordering: .acquiring) }, stopAskedAt: { self.stopAsked.withLock { $0 } })
            }
            race.addTask { for await _ in member.departure {} }
            await race.next()
            race.cancelAll()
        }
    }
}
