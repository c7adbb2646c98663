import Dispatch
import PathwatchBase
import ServiceLifecycle
import Synchronization

/// systemd's watchdog (`WatchdogSec`): `WATCHDOG=1` every half period, but only while the agent's
/// loops are alive, so that a wedged agent is restarted instead of pinging on from a thread that
/// knows nothing of the rest. Before each ping it checks:
///   - the agent's pipeline has handled what was queued to it (a wedged pipeline blocks the
///     pinging thread itself),
///   - the timer thread, where every interval and timeout fires, came round since the last
///     check (it is nudged at every check),
///   - this service's own task ran since the last check: Swift concurrency's pool, where the
///     command line's services run, is not starved.
/// The pings come from a thread of their own: waiting on a pipeline that may never come round must
/// not take a thread of the cooperative pool.
package struct Watchdog: Service {
    let agent: Agent
    let notifier: SystemdNotifier
    let period: Duration

    package init(agent: Agent, notifier: SystemdNotifier, period: Duration) {
        self.agent = agent
        self.notifier = notifier
        self.period = period
    }

    package func run() async throws {
        let beats = Beats()
        let stop = DispatchSemaphore(value: 0)
        let thread = SerialThread(name: "pw-watchdog")
        thread.async { [agent, notifier, period] in
            var lastTurns = agent.heartbeat()
            var lastBeat = beats.count
            while stop.wait(timeout: .now() + .nanoseconds(Int(period.nanosecondsClamped))) == .timedOut {
                let turns = agent.heartbeat()
                let beat = beats.count
                if turns != lastTurns && beat != lastBeat { notifier.send("WATCHDOG=1") }
                lastTurns = turns
                lastBeat = beat
            }
        }
        // This task beats twice a period: a pool that cannot run it for a whole period is starved.
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            beats.beat()
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: period / 2) }
        }
        // Not waited for: a thread stuck on a wedged agent would hold the shutdown forever.
        stop.signal()
        thread.finish()
    }
}

private final class Beats: Sendable {
    private let value = Atomic<UInt64>(0)
    func beat() { value.add(1, ordering: .releasing) }
    var count: UInt64 { value.load(ordering: .acquiring) }
}

extension Duration {
    var nanosecondsClamped: Int64 {
        let (seconds, attoseconds) = components
        return seconds.multipliedReportingOverflow(by: 1_000_000_000).overflow
            ? .max : seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}
