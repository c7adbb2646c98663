import PathwatchSinkKit

/// What the running agent keeps in its pipeline (AgentPipeline, whose isolation the compiler
/// checks): the configuration, the check book, the probes and sinks, each probe's status as its
/// last report left it, and what the pacing of documents holds.
struct AgentState {
    struct ActiveProbe {
        var config: ProbeConfig
        var runner: ProbeRunner
        /// Which instance of the probe this is: a report of an instance a reload replaced,
        /// coming in while it stops, is not taken for its successor's.
        var serial: UInt64 = 0
    }
    var instancesMade: UInt64 = 0

    var loaded: LoadedConfig
    var catalog: PluginCatalog
    var book: CheckBook
    var probes: [String: ActiveProbe] = [:]
    var sinks: [any Sink] = []
    var sinkConfigs: [SinkConfig] = []
    /// Probes yet to report for the first time; nil once the first complete batch went out.
    var awaitingFirstReport: Set<String>? = nil
    /// Each probe's health and when it last reported (the `probes` array).
    var probeStatuses = ProbeStatusTable()
    /// Probes sampled at once because the path came back, until that sample reports.
    var recoverySampled: Set<String> = []
    /// When reports that raised no event go to the sinks.
    var pacing: DocumentPacing
    /// Summaries taken for the observer since start: their order (AgentSummary.sequence).
    var summaries: UInt64 = 0
    /// Where the states last announced are kept across restarts (`run` only), and how many
    /// snapshots of them were taken.
    var announced: AnnouncedStates?
    var announcements: UInt64 = 0
    /// The newest snapshot of them not yet written, while a burst of reports is worked through.
    var unwrittenAnnouncement: Announcement?
    /// Quiet windows, silences and what they held from the notifiers.
    var silencing: Silencing

    init(loaded: LoadedConfig, catalog: PluginCatalog, book: CheckBook) {
        self.loaded = loaded
        self.catalog = catalog
        self.book = book
        pacing = DocumentPacing(window: Self.documentWindow(loaded))
        silencing = Silencing(windows: loaded.config.agent.quiet)
    }

    /// A summary for the observer, numbered in the order it was taken.
    mutating func summary() -> AgentSummary {
        summaries += 1
        let awaiting = awaitingFirstReport ?? []
        return AgentSummary(sequence: summaries, book: book, pending: book.probeOrder.filter(awaiting.contains))
    }

    /// Reads the states announced before a restart, and keeps them from now on.
    mutating func keepAnnouncedStates(in stateDirectory: String, logger: AgentLogger) {
        let store = AnnouncedStates(stateDirectory: stateDirectory, logger: logger)
        announced = store
        let probes = Set(loaded.config.probes.map(\.id))
        (book.announcedBefore, silencing.owed) = store.loadWithOwed(probes: probes)
        silencing.file = SilenceFile(stateDirectory: stateDirectory)
        _ = silencing.refresh(logger: logger)
    }

    /// Every check's last announced state that is a problem, with those not seen since the
    /// restart, to be written once the batch that changed them went to the sinks.
    mutating func announcement() -> Announcement? {
        guard let announced else { return nil }
        announcements += 1
        var entries = book.announcedBefore
        for record in book.records.values {
            if let state = record.announced, state != .ok {
                entries[record.id] = .init(probe: record.probe, state: state)
            }
        }
        return Announcement(
            store: announced, snapshot: .init(generation: announcements, entries: entries, owed: silencing.owed))
    }

    /// Stops taking reports from the probes a reload removes or replaces, and returns their
    /// runners, to be stopped outside the lock, and whether any was removed. A replaced probe's
    /// checks stay until its successor reports (CheckBook+Succession); a removed one's go.
    mutating func retireProbes(keeping keep: Set<String>, replacing: Set<String>) -> (
        stopped: [ProbeRunner], removed: Bool
    ) {
        var stopped: [ProbeRunner] = []
        var removed = false
        for (id, active) in probes where !keep.contains(id) || replacing.contains(id) {
            stopped.append(active.runner)
            probes[id] = nil
            if keep.contains(id) {
                book.holdOver(id)
            } else {
                book.removeProbe(id)
                removed = true
            }
        }
        return (stopped, removed)
    }

    /// What follows adding the probes of a start or reload: the running probes' settings held as
    /// text, and the probes' statuses laid out.
    mutating func probesAdded(started: [ProbeRunner]) {
        keepRunningSettingsAsText()
        arrangeProbeStatuses(started: started)
    }

    /// Holds each running probe's settings in the configuration as the text its plug-in was
    /// given, in place of the tree the configuration was parsed into (ProbeSettings says why),
    /// so the tree goes with the configuration that brought it.
    private mutating func keepRunningSettingsAsText() {
        for i in loaded.config.probes.indices {
            if let running = probes[loaded.config.probes[i].id]?.config.config {
                loaded.config.probes[i].config = running
            }
        }
    }

    /// A probe removed before its first sample is awaited no more (nor named in STATUS=).
    mutating func awaitFirstReports(onlyFrom kept: Set<String>) {
        guard let awaiting = awaitingFirstReport?.intersection(kept) else { return }
        awaitingFirstReport = awaiting.isEmpty ? nil : awaiting
    }

    /// The pacing window of `loaded`: its shortest probe interval.
    static func documentWindow(_ loaded: LoadedConfig) -> UInt64 {
        DocumentPacing.window(
            intervals: loaded.config.probes.map(loaded.interval(of:)), fallback: loaded.config.agent.interval)
    }

    /// Lays out the probes' statuses in configuration order after a start or reload: the
    /// instances of `started` begin from their hosts' health as created.
    mutating func arrangeProbeStatuses(started: [ProbeRunner]) {
        var fresh: [String: ProbeStatus] = [:]
        for runner in started {
            var health = runner.health
            health.lastError = health.lastError.map { loaded.redactor.redact($0) }
            fresh[runner.id] = ProbeStatus(
                id: runner.id, plugin: runner.instance.plugin.name, pluginVersion: runner.instance.plugin.version,
                isolation: runner.instance.isolation,
                health: health, lastSampleAt: nil)
        }
        probeStatuses.arrange(order: book.probeOrder, fresh: fresh)
    }
}

/// The states announced as one batch left them, and where they are kept.
struct Announcement {
    let store: AnnouncedStates
    let snapshot: AnnouncedStates.Snapshot

    /// Writes them (synced to disk; an older snapshot never replaces a newer one).
    func write() { store.save(snapshot) }
}
