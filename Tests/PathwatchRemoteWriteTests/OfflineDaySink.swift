import Foundation
import Logging
import PathwatchClockTesting
import PathwatchSinks
import PathwatchTestSupport
import Testing

@testable import PathwatchAgent
@testable import PathwatchRemoteWrite
@testable import PathwatchSinkKit

/// A `remote_write` sink run in this process on a clock the test moves, whose wall time ends a
/// day of reports at the real present: what an agent offline for a day has queued, made in
/// seconds. Its reports carry one check (`api/self`, ok) of agent `offline-day`, so
/// `pathwatch_check_state{instance="offline-day",state="ok"}` has one sample a report.
final class OfflineDaySink {
    static let minute: UInt64 = 60_000_000_000
    /// A report every 10 minutes for a day.
    static let dayReports = 24 * 6

    let clock: ManualClock
    let sink: any Sink
    /// The sink's queue folder.
    let folder: URL
    /// Reports submitted, and the time of each.
    private(set) var times: [Int64] = []

    static func realNow() -> Int64 { Int64(Date().timeIntervalSince1970 * 1000) }

    /// The sink of `sinkJSON` (a `remote_write` entry), its queue under `stateDirectory`. The
    /// day's reports will span 23 h 50 min and end `endingBefore` milliseconds before the real
    /// present: when the receiver returns the oldest is within `max_age` (24 h) and within a
    /// day of the receiver's newest sample, and the clock has room to go on without passing the
    /// present (a query at the present would not see a sample after it).
    init(sinkJSON: String, stateDirectory: URL, endingBefore: Int64 = 5 * 60_000) throws {
        let firstReport = Self.realNow() - endingBefore - Int64(Self.dayReports - 1) * 600_000
        clock = ManualClock(wallAtStart: WallTime(milliseconds: firstReport))
        let loaded = try ConfigLoader.load(
            text:
                #"{"agent": {"name": "offline-day", "state_dir": "\#(stateDirectory.path)"}, "sinks": [\#(sinkJSON)]}"#,
            file: stateDirectory.deletingLastPathComponent().appendingPathComponent("day.json").path,
            sinks: SinkRegistry.standard)
        let logger = AgentLogger(logger: Logger(label: "offline-day"), redactor: loaded.redactor)
        sink = loaded.config.sinks[0].makeSink(in: loaded, logger: logger, clock: clock)
        let url = try #require(loaded.config.sinks[0].settings as? RemoteWriteSinkSettings).url
        folder = stateDirectory.appendingPathComponent(RemoteWritePush.folderName(url: url))
        sink.start()
    }

    /// A report at the clock's time. While nothing is delivered (`untilQueued`), it returns
    /// once the sink has queued it: its intake reads the clock too, so the clock moves on only
    /// after.
    func report(untilQueued: Bool = false, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let time = clock.wallNow
        let check = CheckRecord(id: "api/self", probe: "api", plugin: "reachability", state: .ok, since: time)
        let snapshot = StatusSnapshot(
            identity: AgentIdentity(name: "offline-day"), time: time, checks: [check], path: .unmonitored)
        sink.submit(SinkBatch(events: [], snapshot: snapshot, reportingProbes: ["api"]))
        times.append(time.milliseconds)
        guard untilQueued else { return }
        try #require(
            waitUntil(timeout: 30) { sink.status().queued >= times.count },
            "report \(times.count) was not queued: \(sink.status())", sourceLocation: sourceLocation)
    }

    /// The day: a report every 10 minutes of the clock, `dayReports` of them, each on disk
    /// before the day ends (the sink's intake writes on its own thread; the clock moves on a
    /// little at a time until it has).
    func runDay(sourceLocation: SourceLocation = #_sourceLocation) throws {
        for n in 0..<Self.dayReports {
            if n > 0 { clock.advance(by: 10 * Self.minute) }
            try report(untilQueued: true)
        }
        var onDisk = 0
        let written = waitUntil(timeout: 30, interval: 0.05) {
            onDisk = (try? RemoteWriteSizingTests.records(in: folder).count) ?? 0
            if onDisk < Self.dayReports { clock.advance(by: Self.minute / 600) }
            return onDisk >= Self.dayReports
        }
        try #require(written, "\(onDisk) of the day's reports on disk", sourceLocation: sourceLocation)
    }

    /// Stops the sink, leaving what it queued on disk.
    func close() {
        sink.drain(timeout: 0, stopAskedAt: nil)
        sink.close(handingOverTo: nil)
    }
}
