import Dispatch
import PathwatchBase
import PathwatchJSON
import PathwatchPluginHost
import PathwatchProbeKit
import Synchronization

/// `plugins --try --watch`: in the trial's child, after the first sample, the instance's event
/// descriptor is watched for a while, as the agent watches it, and each readiness is served by
/// `handle_event` and reported as a step ("event", with what it emitted). The same guard as the
/// agent's throttles a descriptor the plug-in does not drain, and is reported too
/// ("event_descriptor": "undrained", then "drains_again" if it does).
struct TrialWatch {
    /// How long to watch, and each handle_event's deadline from when it is served.
    var duration: ConfigDuration
    var eventTimeout: ConfigDuration

    /// Watches `instance`'s descriptor for `duration`; each step goes to `report`. Returns the
    /// number of events served and whether any failed (the plug-in's error, or a refused
    /// observation, or a descriptor it did not drain).
    func run(_ instance: ProbeInstance, descriptor fd: Int32, report: @escaping @Sendable (JSONValue) -> Void) -> (
        events: Int, failed: Bool
    ) {
        let thread = SerialThread(name: "pw-try-watch", watchingDescriptors: true)
        let tally = Mutex((events: 0, failed: false))
        let closed = DispatchSemaphore(value: 0)
        let timeout = eventTimeout
        let watching = thread.watch(
            fd,
            onReadable: {
                let result = instance.handleEvent(by: .after(timeout))
                tally.withLock {
                    $0.events += 1
                    if result.error != nil || !result.problems.isEmpty { $0.failed = true }
                }
                report(PluginTrialChild.step("event", result))
            },
            onClosed: {
                report(["stage": "event", "error": "the plug-in closed its event descriptor"])
                tally.withLock { $0.failed = true }
                closed.signal()
            },
            onUndrained: { change in
                if change == .throttled { tally.withLock { $0.failed = true } }
                report(["stage": "event_descriptor", "change": .string(EventDescriptorNotice(change).wireName)])
            })
        guard watching else {
            thread.finish()
            report(["stage": "watch", "error": "no descriptor left to watch the plug-in's events with"])
            return (0, true)
        }
        // Until the time is up, or the descriptor is closed under the watch.
        _ = closed.wait(timeout: .now() + .nanoseconds(Int(clamping: duration.nanoseconds)))
        thread.unwatch()
        // A call being served finishes first: the instance's destroy follows on the caller.
        _ = thread.sync { 0 }
        thread.finish()
        return tally.withLock { ($0.events, $0.failed) }
    }
}
