import Dispatch
import PathwatchBase
import PathwatchPluginHost
import PathwatchProbeKit
import PathwatchSinkKit
import Synchronization

/// The running agent: probe runners feeding one pipeline (AgentPipeline), which owns the check
/// book and hands each batch, made of values, to every sink in the order the book made them;
/// a sink renders its own formats from it and asks nothing back. This type starts, reloads and
/// stops; reloading keeps the check states of probes whose configuration did not change.
package final class Agent: Sendable {
    package let identity: AgentIdentity
    let logger: AgentLogger
    /// The agent's state, in the one isolation domain that orders reports.
    let pipeline: AgentPipeline
    let observer: (any AgentObserver)?
    /// The sinks as services: put in the service group before the agent's own service, so they
    /// drain after the probes stopped (see SinkGroup).
    package let sinkGroup = SinkGroup()
    /// The plug-in children, one per plug-in file, shared by its isolated probes across reloads.
    private let children: PluginChildren
    /// What reports are stamped with and paced documents are timed on.
    let clock: any AgentClock

    package convenience init(config: LoadedConfig, logger: AgentLogger, observer: (any AgentObserver)? = nil) {
        self.init(config: config, logger: logger, observer: observer, clock: SystemClock())
    }

    /// `clock`: a test's, to drive document pacing and plug-in children's restarts in virtual time.
    package init(config: LoadedConfig, logger: AgentLogger, observer: (any AgentObserver)?, clock: any AgentClock) {
        self.identity = AgentIdentity(name: config.config.agent.name)
        self.logger = logger
        self.observer = observer
        self.clock = clock
        self.children = PluginChildren(clock: clock)
        self.pipeline = AgentPipeline(
            state: AgentState(
                loaded: config, catalog: PluginCatalog(), book: CheckBook(agentName: config.config.agent.name)),
            identity: identity, logger: logger, observer: observer, clock: clock)
    }

    deinit { pipeline.finish() }

    /// One report of `probe`, with its host's health when it was sent, for the pipeline, after
    /// every report sent before it; returns at once unless the pipeline is far behind.
    /// `instance` is the reporting instance's serial (nil: whichever instance runs).
    func receive(_ report: ProbeReport, health: ProbeHealth? = nil, from probe: String, instance: UInt64? = nil) {
        pipeline.sendReport { $0.receive(report, health: health, from: probe, instance: instance) }
    }

    /// Returns once the pipeline has handled everything sent to it before.
    func settle() { pipeline.call { _ in } }

    /// Set by `cancelStart()`.
    private let startCancelled = Atomic<Bool>(false)

    /// A stop was asked for while `start` runs. Creating a thousand isolated probes starts a
    /// thousand children one after the other (25 s on two busy cores), and a stop that waited
    /// for all of them overran the unit's TimeoutStopSec: `start` creates no more, and the stop
    /// that follows ends those it did create.
    package func cancelStart() { startCancelled.store(true, ordering: .releasing) }

    /// Loads plug-ins, creates every probe and sink, and starts sampling; after `cancelStart()`,
    /// only hands the probes created so far to `stop()`.
    package func start() throws(ConfigError) {
        let loaded = pipeline.call { $0.state.loaded }
        let catalog = PluginCatalog.discover(
            for: loaded, logger: logger, needing: Set(loaded.config.probes.map(\.plugin)))
        for refusal in catalog.refused { logger.warning("plug-in refused: \(refusal)") }
        let created = try ProbeSetup.instantiate(loaded, catalog: catalog, logger: logger, children: children) {
            self.startCancelled.load(ordering: .acquiring)
        }
        if startCancelled.load(ordering: .acquiring) {
            // Runners that never start: stop() destroys their instances, all at once.
            pipeline.call { p in _ = created.map { self.add($0, loaded: loaded, into: &p.state) } }
            logger.notice(
                "stopped while starting: \(created.count) of \(Plural.count(loaded.config.probes.count, "probe")) created, none started"
            )
            return
        }
        let sinks = loaded.config.sinks.map { $0.makeSink(in: loaded, logger: logger, clock: clock) }
        let runners = pipeline.call { [logger] p -> [ProbeRunner] in
            p.state.catalog = catalog
            p.state.sinks = sinks
            p.state.sinkConfigs = loaded.config.sinks
            p.state.book.probeOrder = loaded.config.probes.map(\.id)
            p.state.awaitingFirstReport = Set(loaded.config.probes.map(\.id))
            p.state.keepAnnouncedStates(in: loaded.stateDirectory, logger: logger)
            p.watchSilences()
            let runners = created.map { self.add($0, loaded: loaded, into: &p.state) }
            p.state.probesAdded(started: runners)
            return runners
        }
        sinks.forEach { $0.start() }
        sinkGroup.join(sinks)
        runners.forEach(begin)
        ReadyTimeout.arm(loaded.config.agent.readyTimeout, for: self, probes: created.count)
        logger.info(
            "pathwatch \(AgentIdentity.version) started as \(identity.name): \(Plural.count(created.count, "probe")), \(Plural.count(sinks.count, "sink"))"
        )
    }

    private func add(_ created: ProbeSetup.Created, loaded: LoadedConfig, into s: inout AgentState) -> ProbeRunner {
        let probe = created.config
        let id = probe.id
        s.instancesMade += 1
        let serial = s.instancesMade
        let runner = ProbeRunner(
            id: id, instance: created.instance, interval: loaded.interval(of: probe),
            timeout: loaded.timeout(of: probe), logger: logger, clock: clock,
            report: { [weak self] report, health in self?.receive(report, health: health, from: id, instance: serial) })
        s.probes[id] = AgentState.ActiveProbe(config: probe, runner: runner, serial: serial)
        s.book.policies[id] = created.policy
        return runner
    }

    /// Starts sampling; an event-driven probe's runner watches its descriptor itself.
    private func begin(_ runner: ProbeRunner) { runner.start() }

    /// Proof of life for a watchdog: returns only once the pipeline has handled what was sent
    /// to it before, and nudges the timer thread (every interval and timeout fires there),
    /// returning how many turns it had made before. A later call returning the same number
    /// means the thread did not come round since: it is wedged, and nothing is sampled any more.
    package func heartbeat() -> UInt64 {
        settle()
        return TimerThread.shared.nudge()
    }

    /// Applies a new configuration. Probes whose settings are unchanged keep running with their
    /// check states; changed ones are recreated; removed ones stop. On any error the running
    /// configuration stays as it was.
    /// Returns what changed, in words ("2 probes (re)started, 0 stopped, 3 kept").
    @discardableResult
    package func reload(_ given: LoadedConfig) throws(ConfigError) -> String {
        let catalog = pipeline.call { $0.state.catalog }
        // One redactor for the agent's life: the logger and every sink hold the first one, so
        // the new file's secrets join it (and the old ones stay: they may still be in queues).
        logger.redactor.add(contentsOf: given.redactor)
        let next = {
            var next = given
            next.redactor = logger.redactor
            return next
        }()
        let merged = catalog.adding(pluginsOf: next, logger: logger)
        let running = pipeline.call { $0.state.probes.mapValues(\.config) }
        let changed = next.config.probes.enumerated().filter { running[$0.element.id] != $0.element }.map(\.offset)
        let created = try ProbeSetup.instantiate(
            next, catalog: merged, only: changed, logger: logger, children: children)
        // A sink is made in the setting of its configuration (folders, the agent's interval): one
        // whose entry is unchanged is kept only while that setting is too.
        let (runningSinks, sameSetting) = pipeline.call { p in
            (
                p.state.sinkConfigs == next.config.sinks ? nil : Array(zip(p.state.sinkConfigs, p.state.sinks)),
                p.state.loaded.sinkSetting == next.sinkSetting
            )
        }
        let replacement = runningSinks.map { runningSinks in
            SinkReplacement(running: runningSinks.map { ($0.0, $0.1) }, next: next.config.sinks, reuse: sameSetting) {
                $0.makeSink(in: next, logger: logger, clock: clock)
            }
        }
        let (stopped, started) = pipeline.call { p -> ([ProbeRunner], [ProbeRunner]) in
            let keep = Set(next.config.probes.map(\.id))
            let (stopped, removed) = p.state.retireProbes(
                keeping: keep, replacing: Set(changed.map { next.config.probes[$0].id }))
            p.state.awaitFirstReports(onlyFrom: keep)
            p.state.loaded = next
            p.state.pacing.window = AgentState.documentWindow(next)
            p.state.silencing.windows = next.config.agent.quiet.map(\.rule)
            p.state.catalog = merged
            p.state.book.probeOrder = next.config.probes.map(\.id)
            let started = created.map { self.add($0, loaded: next, into: &p.state) }
            p.state.probesAdded(started: started)
            // In the pipeline, so no batch is made between the swap and the hand-over: the
            // replaced sinks have had their last, and the new ones are started before their first.
            if let replacement {
                p.state.sinks = replacement.sinks
                p.state.sinkConfigs = next.config.sinks
                self.handOver(replacement)
            }
            // The sinks learn now that removed probes are gone, not with the next report.
            if removed { p.publishState() }
            p.silencesChanged()
            return (stopped, started)
        }
        for runner in stopped { runner.stop() }
        started.forEach(begin)
        let summary =
            "\(started.count) probes (re)started, \(stopped.count) stopped, \(next.config.probes.count - started.count) kept"
        logger.notice("configuration reloaded: \(summary)")
        return summary
    }

    /// A replaced sink with a durable queue writes what it was handed to its folder, releases it
    /// and hands anything it could not write to its replacement; only then do the new sinks
    /// start, so nothing accepted is lost to a reload, however fast reloads come. Sinks whose
    /// entries did not change are neither closed nor started: they go on as they were. Runs in
    /// the pipeline (a close may wait a moment to write its queue; reports wait in order).
    private func handOver(_ replacement: SinkReplacement) {
        for (sink, successor) in replacement.replaced { sink.close(handingOverTo: successor) }
        sinkGroup.leave(replacement.replaced.map(\.sink))
        replacement.added.forEach { $0.start() }
        sinkGroup.join(replacement.added)
    }

    /// How long a stop waits for isolated probes' children to end. Each is told to end, killed
    /// 2 s later if still busy (ChildProcess.finish), and waited for at most 3 s.
    static let childStopLimit = 4.0

    /// Stops every probe, all at once (each instance is destroyed on its runner's own thread),
    /// and waits, at most `childStopLimit` seconds, until every isolated probe's child has ended:
    /// the agent exits once its sinks drained, after this, and no child may outlive it (under
    /// systemd the unit's remaining processes would be killed; elsewhere they would linger as
    /// orphans). A thousand children end in the time the host needs to end a thousand
    /// processes, about 3 s on two cores. Inline probes are not waited for: a hung inline call
    /// keeps its destroy for as long as it hangs.
    /// The sinks deliver what they hold when the service group shuts their SinkGroup down; a
    /// line in progress then is finished within its time counted from here (`stopAsked`).
    package func stop() {
        sinkGroup.stopAsked(at: clock.monotonicNow)
        // What the last reports said, if their batch was still held, goes first, while every
        // probe's health (its child's pid, its restarts) still says what was known; a report
        // that comes in while the probes stop goes at once.
        let runners = pipeline.call { p in
            p.stopWatchingSilences()
            p.state.pacing.stopping = true
            p.publishHeld()
            return p.state.probes.values.map(\.runner)
        }
        let childrenEnded = DispatchGroup()
        for runner in runners {
            guard runner.instance.isolation == .process else {
                runner.stop()
                continue
            }
            childrenEnded.enter()
            runner.stop { childrenEnded.leave() }
        }
        _ = childrenEnded.wait(timeout: .now() + Self.childStopLimit)
        // What the probes reported while they stopped is with the sinks before they drain, and
        // the states it announced are written.
        settle()
    }
}
