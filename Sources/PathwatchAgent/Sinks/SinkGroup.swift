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
    static let drainSeconds: Double = 5

    private enum Change: Sendable {
        case join(any Sink)
        case leave(ObjectIdentifier)
    }

    private let changes: AsyncStream<Change>
    private let continuation: AsyncStream<Change>.Continuation
    private let running = Atomic<Int>(0)

    /// How many sinks are being run now: those that joined, less those that left or finished.
    var serving: Int { running.load(ordering: .relaxed) }

    init() {
        (changes, continuation) = AsyncStream.makeStream()
    }

    /// Sinks the agent started.
    func join(_ sinks: [any Sink]) {
        for sink in sinks { continuation.yield(.join(sink)) }
    }

    /// Sinks a reload replaced and closed: their services end without a drain.
    func leave(_ sinks: [any Sink]) {
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
            var leaving: [ObjectIdentifier: AsyncStream<Void>.Continuation] = [:]
            for await change in changes {
                switch change {
                case .join(let sink):
                    let (left, leave) = AsyncStream<Void>.makeStream()
                    leaving[ObjectIdentifier(sink)] = leave
                    group.addTask { await self.serve(sink, until: left) }
                case .leave(let id):
                    leaving.removeValue(forKey: id)?.finish()
                }
            }
        }
    }

    /// Runs `sink` as a service until it returns (it drained after a shutdown) or it leaves
    /// (a reload closed it), whichever comes first; leaving cancels its run.
    private func serve(_ sink: any Sink, until left: AsyncStream<Void>) async {
        running.add(1, ordering: .relaxed)
        defer { running.subtract(1, ordering: .relaxed) }
        await withTaskGroup(of: Void.self) { race in
            race.addTask { try? await sink.run() }
            race.addTask { for await _ in left {} }
            await race.next()
            race.cancelAll()
        }
    }
}
