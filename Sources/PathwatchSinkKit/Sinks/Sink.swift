import PathwatchBase
import PathwatchProbeKit
import ServiceLifecycle

/// What the agent's latest reports produced, as sinks receive it: the change events they raised
/// (often none), the complete snapshot after them, which each sink renders in its own format,
/// and which probes reported. A report that raises events makes a batch at once; others are
/// folded into about one batch per tick (DocumentPacing).
package struct SinkBatch: Sendable {
    package var events: [ChangeEvent]
    package var snapshot: StatusSnapshot
    /// The probes whose reports made this batch, in the order they reported; nil when no
    /// probe's report did. Only their checks and health changed since the batch before, so a
    /// sink that sends series can send theirs alone, at the cadence they report at.
    package var reportingProbes: [String]?
    /// True for the one batch after which every probe has reported once since start: the first
    /// complete picture of the host, which a person watching stdout wants to see even when
    /// nothing is wrong.
    package var firstComplete: Bool = false
    /// What a silence held from the notifiers and is owed now that it is over: for each check
    /// whose state is not the one they were last sent, one change from that state to this one.
    /// Notifiers send these as changes; every other sink has shown the silenced changes already.
    package var owed: [ChangeEvent] = []
    /// The tick whose reports made this batch (its instant on the monotonic clock, a multiple
    /// of the pacing window: DocumentPacing); nil when no report has come yet. A sink that
    /// spaces its deliveries counts between ticks, so a later document of the tick it last
    /// delivered (a slower probe's reports) is not held for a whole spacing.
    package var tick: UInt64?

    package init(
        events: [ChangeEvent], snapshot: StatusSnapshot, firstComplete: Bool = false, reportingProbes: [String]? = nil
    ) {
        self.events = events
        self.snapshot = snapshot
        self.firstComplete = firstComplete
        self.reportingProbes = reportingProbes
    }

    package var state: CheckState { snapshot.state }
    package var time: WallTime { snapshot.time }
    /// The connectivity path after this batch (a webhook holds deliveries while it is unsatisfied).
    package var path: PathSummary { snapshot.path }
}

/// A destination for events and documents, and a service of the agent's service group (run
/// inside its SinkGroup). Each sink has its own bounded queue and a thread of delivery (a
/// SinkRunner's, around the sink's SinkDelivery, the one way every sink is run), so a slow or
/// dead sink never delays another or the probes, and its blocking calls (a write to a full
/// pipe, an fsync, a request) never hold Swift concurrency's threads.
package protocol Sink: Service, AnyObject {
    /// Hands over a batch; returns at once (it is called in the agent's pipeline, which every
    /// other sink and report wait for). The sink picks what its triggers ask for.
    func submit(_ batch: SinkBatch)
    /// Delivers what is queued, waiting at most `timeout` seconds. `stopAskedAt`, on the agent's
    /// monotonic clock, is when the agent was asked to stop, if known: a sink that finishes the
    /// item in progress (`SinkDelivery.finishWithin`) counts that time from then, so the stop
    /// before the drain does not add to it.
    func drain(timeout: Double, stopAskedAt: UInt64?)
    /// Its queue and delivery state, taken into every snapshot as a value: called in the agent's
    /// pipeline as each batch is made, so it takes only the sink's own locks for a moment
    /// and never waits on the sink's delivery.
    func status() -> SinkStatus
    /// Begins delivering. A sink made by a reload starts only after the sinks it replaces are
    /// closed, so it never races them for what they own (a webhook's queue folder).
    func start()
    /// Stops for good and releases what it holds, keeping anything durable for the next start.
    /// What it accepted but could not yet make durable goes to `successor`, and is counted as
    /// dropped only when there is none. The agent picks the successor (a reload): the new sink
    /// of the same kind that holds what this one held (its `SinkSettings.exclusiveClaim`), so a
    /// sink never searches the new sinks itself. Called after `drain`, or when a reload
    /// replaces the sink.
    func close(handingOverTo successor: (any Sink)?)
    /// True for a sink that wants every report, as it comes, rather than the whole state about
    /// once a tick (DocumentPacing): one that sends each probe's series at that probe's
    /// cadence. Its batches carry a snapshot of the reporting probe alone (its checks,
    /// its health, the path and the sinks), never the whole estate.
    var takesEveryReport: Bool { get }
}

extension Sink {
    package var takesEveryReport: Bool { false }
    package func start() {}
    package func close(handingOverTo successor: (any Sink)?) {}

    /// The sink as a service: it delivers from `start`, which the agent calls (in order with
    /// the sinks a reload replaces), until the service group shuts down; then it delivers what
    /// it holds, for at most `SinkGroup.drainSeconds`, and closes. That wait blocks, so it runs
    /// on a thread of its own. Cancelled (a reload replaced and closed it, or the group is
    /// failing), it returns at once; so does one that `left` says a reload closed by the time
    /// the shutdown came (the cancel may not have reached it yet: `run(unless:)`).
    package func run() async throws { try await run(unless: { false }, stopAskedAt: { nil }) }

    /// `run()`, for a sink that `left` may say a reload closed, in a group that knows when the
    /// stop was asked for (`stopAskedAt`, read as the drain begins).
    package func run(unless left: @Sendable () -> Bool, stopAskedAt: @Sendable () -> UInt64?) async throws {
        do {
            try await gracefulShutdown()
        } catch {
            return
        }
        guard !left() else { return }
        let asked = stopAskedAt()
        await onThreadOfItsOwn(named: "pw-sink-drain") {
            self.drain(timeout: SinkGroup.drainSeconds, stopAskedAt: asked)
            self.close(handingOverTo: nil)
        }
    }
}
