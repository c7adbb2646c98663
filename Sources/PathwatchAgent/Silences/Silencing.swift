import PathwatchProbeKit
import PathwatchSinkKit

/// What silences the agent's checks and what the silences held back, kept in the pipeline:
/// `agent.quiet`'s windows, the silences `pathwatch silence` added (`SilenceFile`, read when
/// it changes), and, for each check whose changes a silence kept from the notifiers, the state
/// they were last sent (`owed`, kept across restarts with the announced states). A silenced
/// change still goes to every sink, marked; notifiers leave it out. When no silence covers the
/// check any more and its state is not the one last sent, the change from that state to this
/// one is owed, and goes to the notifiers with the next batch (`SinkBatch.owed`).
struct Silencing {
    var windows: [SilenceRule]
    var silences: [SilenceRule] = []
    /// The silences file and the stamp of what was last read of it; nil: none (`once`).
    var file: SilenceFile?
    var fileStamp: SilenceFile.Stamp?
    /// Whether the last read of the file failed (said once until one succeeds).
    var fileFailing = false
    var owed: [String: AnnouncedStates.Owed] = [:]
    /// The checks silenced in the last batch: a change of it is a reason for a new batch.
    var lastSilenced: Set<String> = []
    /// The watch on the silences file (nil: none could be had; the file is looked at with each
    /// boundary and at least once a minute instead), and the timer of the next boundary.
    var fileWatch: SilenceFileWatch?
    var boundaryTimer: ClockTimer?

    init(windows: [QuietWindow]) { self.windows = windows.map(\.rule) }

    /// The rules in force at `now`.
    private func active(at now: WallTime) -> [SilenceRule] {
        (windows + silences).filter { $0.isActive(at: now) }
    }

    /// When the next rule starts or stops (the silenced checks may change then); nil: none will.
    func nextChange(after now: WallTime) -> WallTime? {
        (windows + silences).compactMap { $0.nextChange(after: now) }.min()
    }

    /// The checks of `book` a rule covers at `now`.
    func silencedChecks(in book: CheckBook, at now: WallTime) -> Set<String> {
        let rules = active(at: now)
        guard !rules.isEmpty else { return [] }
        return Set(book.records.keys.filter { id in rules.contains { $0.matches(id) } })
    }

    /// Marks the changes a rule covers and remembers, for each, the state the notifiers were
    /// last sent; true when what is owed changed.
    mutating func mark(_ events: inout [ChangeEvent], silenced: Set<String>) -> Bool {
        var changed = false
        for i in events.indices where silenced.contains(events[i].check) {
            events[i].silenced = true
            if owed[events[i].check] == nil {
                owed[events[i].check] = .init(probe: events[i].probe, told: events[i].from)
                changed = true
            }
        }
        return changed
    }

    /// The changes owed to the notifiers for the checks no rule covers any more, each from the
    /// state they were last sent to the one it is in (none when it is back where it was, or
    /// when `events`, the batch's own changes, tell the notifiers of it already).
    mutating func release(
        book: CheckBook, silenced: Set<String>, events: [ChangeEvent], agent: String, at now: WallTime
    ) -> [ChangeEvent] {
        guard !owed.isEmpty else { return [] }
        let told = Set(events.filter { !$0.silenced }.map(\.check))
        var released: [ChangeEvent] = []
        for (id, entry) in owed.sorted(by: { $0.key < $1.key }) where !silenced.contains(id) {
            owed[id] = nil
            guard !told.contains(id), let record = book.records[id], record.state != entry.told else { continue }
            released.append(
                ChangeEvent(
                    id: EventID.make(at: now), agent: agent, check: id, probe: record.probe, from: entry.told,
                    to: record.state, at: now, message: record.message, path: book.path))
        }
        return released
    }

    /// Reads the silences file if it changed; true when the silences did. An unreadable file
    /// keeps the silences read before (said once, until it reads again).
    mutating func refresh(logger: AgentLogger) -> Bool {
        guard let file else { return false }
        let stamp = file.stamp()
        guard stamp != fileStamp else { return false }
        switch file.read() {
        case .success(let entries):
            fileStamp = stamp
            fileFailing = false
            let rules = entries.map(\.rule)
            guard rules != silences else { return false }
            silences = rules
            logger.notice("silences: \(entries.count) in \(file.path)")
            return true
        case .failure(let error):
            if !fileFailing { logger.warning("\(error); the silences read before are kept") }
            fileFailing = true
            return false
        }
    }
}
