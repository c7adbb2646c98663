import Glibc
import PathwatchBase
import PathwatchJSON
import PathwatchProbeKit
import PathwatchSinkKit
import Synchronization

/// Keeps the latest status document at `path`, replaced atomically: write a temporary file in
/// the same folder, fsync it, rename it over the target. A reader sees the old document or the
/// new one, never a torn one, and a crash leaves one of the two on disk. The folder is not
/// fsynced: whether the rename itself survives a crash does not matter for a document the
/// agent writes again within an interval of starting, and it cost a fifth of each write.
///
/// Only the newest document matters, and each write costs an fsync: run by a SinkRunner that
/// keeps the latest document alone and writes the documents of one tick at most once per
/// `spacing` (the agent's interval, less the tenth that is the documents' jitter:
/// `DocumentSpacing`). A later document of the tick last written (a slower probe's reports,
/// which the agent's pacing already spaces) is written at once, as is a report that changed a
/// check's state or added or removed a check: a change never waits.
final class FileSink: SinkDelivery {
    let path: String
    let pretty: Bool
    let format: FileSinkSettings.Format
    let mode: UInt32?
    let triggers: SinkTriggers
    let spacing: DocumentSpacing?
    /// A file that cannot be written fails every write, one per report: logged once per kind
    /// and ten minutes (its `last_error` is in the status document meanwhile).
    private let repeated: LogRateLimiter
    /// The checks and their states in the newest document: a check that appears, goes or
    /// changes state is written at once, like a change event.
    private let states = Mutex(0)

    init(
        path: String, pretty: Bool, format: FileSinkSettings.Format = .json, mode: UInt32? = nil,
        triggers: SinkTriggers,
        spacing: ConfigDuration = .seconds(0), logger: AgentLogger, clock: any AgentClock = SystemClock()
    ) {
        self.path = path
        self.pretty = pretty
        self.format = format
        self.mode = mode
        self.triggers = triggers
        self.spacing = DocumentSpacing(UInt64(max(0, spacing.nanoseconds)))
        repeated = LogRateLimiter(clock: clock) { level, text in logger.log(level, text) }
    }

    var intakePolicy: SinkIntakePolicy { .keepLatest }
    var threadName: String { "pw-sink-file" }

    /// `every` rewrites the file after reports (at most once per spacing); `change` only when a
    /// check changed.
    func intake(_ batch: SinkBatch) -> SinkIntake<StatusSnapshot> {
        let changed = !batch.events.isEmpty
        guard triggers.contains(.every) || (triggers.contains(.change) && changed) else { return .none }
        let fingerprint = batch.snapshot.statesFingerprint
        let moved = states.withLock { states in
            defer { states = fingerprint }
            return changed || fingerprint != states
        }
        return SinkIntake([batch.snapshot], urgent: moved, tick: batch.tick)
    }

    func deliver(_ snapshot: StatusSnapshot) -> SinkDeliveryResult {
        // check-config refused a path that is not the sink's to replace; something may have
        // appeared there since (a link, a device, another program's file). Never rename over it.
        if let problem = FileSinkTarget.problem(path) {
            repeated.log(.error, kind: "not-writing", "file sink: not writing \(path): it \(problem)")
            return .failed("\(path) \(problem)")
        }
        // Rendered here, on the sink's thread, once per write.
        do {
            try AtomicFile.write(to: path, mode: mode, syncFolder: false) { put in render(snapshot, to: put) }
            return .delivered
        } catch {
            repeated.log(.error, kind: "cannot-write", "file sink: cannot write \(path): \(error)")
            return .failed("\(error)")
        }
    }

    /// The file's bytes as the renderers write them, handed to `put` in order. The pretty
    /// document is written in pieces as it is rendered: whole, at 10,000 checks it is some 5 MB,
    /// the largest allocation of the agent's round, made afresh (its pages faulted in and
    /// cleared) at every write. The compact one is the snapshot's, which other sinks share.
    private func render(_ snapshot: StatusSnapshot, to put: (_ piece: [UInt8]) -> Void) {
        switch format {
        case .json where pretty:
            StatusDocumentWriter.write(snapshot, pretty: true, inPiecesOf: Self.piece, endingWithNewline: true, to: put)
        case .json:
            put(snapshot.jsonBytes())
            put(Self.newline)
        case .prometheus: put(PrometheusExposition.renderBytes(snapshot))
        }
    }

    /// How much of a document is rendered before it is written (the piece ends with the check
    /// or probe that fills it): the memory a write holds, whatever the number of checks.
    private static let piece = 64 * 1024
    private static let newline: [UInt8] = [UInt8(ascii: "\n")]

    func status() -> SinkStatus { SinkStatus(type: "file", target: path, queued: 0, dropped: 0) }

    /// What the log held back is said before the sink goes.
    func close(handingOverTo successor: FileSink?) { repeated.flush() }
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
        try write(Array(text.utf8), to: path, mode: mode, syncFolder: syncFolder)
    }

    package static func write(_ bytes: [UInt8], to path: String, mode: UInt32? = nil, syncFolder: Bool = true)
        throws(WriteError)
    {
        try write(to: path, mode: mode, syncFolder: syncFolder) { put in put(bytes) }
    }

    /// Writes the file from the pieces `produce` hands to `put`, in order, so that a large
    /// document need not be held whole. After a piece fails to be written the rest are not
    /// written, and the temporary file is removed: the target keeps its last whole document.
    package static func write(
        to path: String, mode: UInt32? = nil, syncFolder: Bool = true,
        producing produce: (_ put: (_ piece: [UInt8]) -> Void) -> Void
    ) throws(WriteError) {
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
        var failure: String?
        produce { piece in
            guard failure == nil, !FileDescriptorWriter.writeAll(fd, piece) else { return }
            failure = errnoText()
        }
        if let failure {
            close(fd)
            unlink(temporary)
            throw WriteError(description: "write \(temporary): \(failure)")
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
