import Dispatch
import Glibc
import PathwatchAgent
import PathwatchBase
import PathwatchJSON
import PathwatchProbeKit
import Synchronization

/// Keeps the latest status document at `path`, replaced atomically: write a temporary file in
/// the same folder, fsync it, rename it over the target. A reader sees the old document or the
/// new one, never a torn one, and a crash leaves one of the two on disk. The folder is not
/// fsynced: whether the rename itself survives a crash does not matter for a document the
/// agent writes again within an interval of starting, and it cost a fifth of each write.
///
/// Only the newest document matters, and each write costs an fsync: reports are coalesced so
/// the file is written at most once per `spacing` (the agent's interval) less the tenth that is
/// the documents' jitter (`earliestNextDocument`), the newest document each time. A report that
/// changed a check's state, or added or removed a check, is written at once: a change never waits.
/// The spacing is read and waited for on the agent's clock.
final class FileSink: Sink {
    let path: String
    let pretty: Bool
    let format: FileSinkSettings.Format
    let mode: UInt32?
    let triggers: Set<SinkTrigger>
    let spacing: ConfigDuration
    /// A file that cannot be written fails every write, one per report: logged once per kind
    /// and ten minutes (its `last_error` is in the status document meanwhile).
    private let repeated: LogRateLimiter
    private let queue = SerialThread(name: "pw-sink-file")
    /// What the spacing reads and waits on, and the time of the last write.
    private let clock: any AgentClock

    private struct Pending {
        var snapshot: StatusSnapshot?
        /// A write is queued or waiting for its time.
        var scheduled = false
        /// A write for a change is queued (changes skip the wait, once each).
        var urgent = false
        /// When the last write began (monotonic nanoseconds).
        var lastWrite: UInt64?
        /// The checks and their states in the newest document: a check that appears, goes or
        /// changes state is written at once, like a change event.
        var states = 0
    }
    private let latest = Mutex(Pending())
    private let outcome = Mutex<(lastWrite: WallTime?, lastError: String?)>((nil, nil))

    init(
        path: String, pretty: Bool, format: FileSinkSettings.Format = .json, mode: UInt32? = nil,
        triggers: Set<SinkTrigger>,
        spacing: ConfigDuration = .seconds(0), logger: AgentLogger, clock: any AgentClock = SystemClock()
    ) {
        self.path = path
        self.pretty = pretty
        self.format = format
        self.mode = mode
        self.triggers = triggers
        self.spacing = spacing
        self.clock = clock
        repeated = LogRateLimiter(clock: clock) { level, text in logger.log(level, text) }
    }

    /// `every` rewrites the file after reports (at most once per spacing); `change` only when a
    /// check changed.
    func submit(_ batch: SinkBatch) {
        let changed = !batch.events.isEmpty
        guard triggers.contains(.every) || (triggers.contains(.change) && changed) else { return }
        let snapshot = batch.snapshot
        let states = batch.snapshot.statesFingerprint
        let spacing = UInt64(max(0, self.spacing.nanoseconds))
        let due = latest.withLock { p -> UInt64? in
            p.snapshot = snapshot
            let moved = changed || states != p.states
            p.states = states
            if moved && !p.urgent {
                p.urgent = true
                p.scheduled = true
                return 0
            }
            if p.scheduled { return nil }
            p.scheduled = true
            return p.lastWrite.map { Self.earliestWrite(after: $0, spacing: spacing) } ?? 0
        }
        guard let due else { return }
        if due <= clock.monotonicNow {
            queue.async { self.writeLatest() }
        } else {
            clock.schedule(atMonotonic: due) { self.queue.async { self.writeLatest() } }
        }
    }

    /// When a document that changed nothing may be written, after a write that began at
    /// `lastWrite` (monotonic nanoseconds).
    static func earliestWrite(after lastWrite: UInt64, spacing: UInt64) -> UInt64 {
        earliestNextDocument(after: lastWrite, spacing: spacing)
    }

    private func writeLatest() {
        let snapshot = latest.withLock { p -> StatusSnapshot? in
            let d = p.snapshot
            p.snapshot = nil
            p.scheduled = false
            p.urgent = false
            if d != nil { p.lastWrite = clock.monotonicNow }
            return d
        }
        guard let snapshot else { return }
        // check-config refused a path that is not the sink's to replace; something may have
        // appeared there since (a link, a device, another program's file). Never rename over it.
        if let problem = FileSinkTarget.problem(path) {
            repeated.log(.error, kind: "not-writing", "file sink: not writing \(path): it \(problem)")
            outcome.withLock { $0.lastError = "\(path) \(problem)" }
            return
        }
        // Rendered here, on this sink's thread, once per write.
        do {
            try AtomicFile.write(render(snapshot), to: path, mode: mode, syncFolder: false)
            outcome.withLock { $0 = (clock.wallNow, nil) }
        } catch {
            repeated.log(.error, kind: "cannot-write", "file sink: cannot write \(path): \(error)")
            outcome.withLock { $0.lastError = "\(error)" }
        }
    }

    private func render(_ snapshot: StatusSnapshot) -> String {
        switch format {
        case .json: snapshot.jsonText(pretty: pretty) + "\n"
        case .prometheus: PrometheusExposition.render(snapshot)
        }
    }

    func status() -> SinkStatus {
        let queued = latest.withLock { $0.snapshot == nil ? 0 : 1 }
        let (last, error) = outcome.withLock { ($0.lastWrite, $0.lastError) }
        return SinkStatus(type: "file", target: path, queued: queued, dropped: 0, lastDelivery: last, lastError: error)
    }

    func close(handingOverTo successor: (any Sink)?) {
        // What the log held back is said before the sink goes.
        repeated.flush()
        queue.finish()
    }

    func drain(timeout: Double) {
        let done = DispatchSemaphore(value: 0)
        queue.async {
            self.writeLatest()
            done.signal()
        }
        _ = done.wait(timeout: .now() + timeout)
    }
}

/// write → fsync → rename → fsync(folder), the last when the rename itself must survive a crash.
package enum AtomicFile {
    private static let temporarySerial = Atomic<UInt64>(0)

    package struct WriteError: Error, CustomStringConvertible {
        package var description: String
    }

    /// `mode`: the file's permission bits, set with fchmod (which no umask narrows); nil leaves
    /// 0644 as the umask narrows it.
    package static func write(_ text: String, to path: String, mode: UInt32? = nil, syncFolder: Bool = true)
        throws(WriteError)
    {
        // A name of its own for every write: two writers of one path (an old and a new file
        // sink during a reload) must never share, truncate or rename each other's file.
        let temporary = "\(path).tmp.\(getpid()).\(temporarySerial.add(1, ordering: .relaxed).newValue)"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw WriteError(description: "open \(temporary): \(errnoText())") }
        if let mode, fchmod(fd, mode_t(mode)) != 0 {
            let why = errnoText()
            close(fd)
            unlink(temporary)
            throw WriteError(description: "chmod \(temporary): \(why)")
        }
        guard FileDescriptorWriter.writeAll(fd, text) else {
            let why = errnoText()
            close(fd)
            unlink(temporary)
            throw WriteError(description: "write \(temporary): \(why)")
        }
        if fsync(fd) != 0 {
            let why = errnoText()
            close(fd)
            unlink(temporary)
            throw WriteError(description: "fsync \(temporary): \(why)")
        }
        close(fd)
        guard rename(temporary, path) == 0 else {
            let why = errnoText()
            unlink(temporary)
            throw WriteError(description: "rename to \(path): \(why)")
        }
        guard syncFolder else { return }
        let dirFD = open(directoryName(path), O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if dirFD >= 0 {
            fsync(dirFD)
            close(dirFD)
        }
    }
}
