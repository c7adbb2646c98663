import Dispatch
import Synchronization
import PathwatchProbeKit

/// Keeps the latest status document at `path`, replaced atomically: write a temporary file in
/// the same folder, fsync it, rename it over the target, fsync the folder. A reader sees the old
/// document or the new one, never a torn one, and a crash leaves one of the two on disk.
/// Only the newest document matters, so documents that arrive while one is being written are
/// coalesced into the next write.
final class FileSink: Sink {
    let path: String
    let pretty: Bool
    let format: FileSinkSettings.Format
    let triggers: Set<SinkTrigger>
    private let logger: AgentLogger
    private let queue = DispatchQueue(label: "pathwatch.sink.file")
    private let latest = Mutex<(document: JSONValue?, scheduled: Bool)>((nil, false))
    private let outcome = Mutex<(lastWrite: WallTime?, lastError: String?)>((nil, nil))

    init(path: String, pretty: Bool, format: FileSinkSettings.Format = .json, triggers: Set<SinkTrigger>, logger: AgentLogger) {
        self.path = path
        self.pretty = pretty
        self.format = format
        self.triggers = triggers
        self.logger = logger
    }

    /// `every` rewrites the file after every sample; `change` only when a check changed.
    func submit(_ batch: SinkBatch) {
        guard triggers.contains(.every) || (triggers.contains(.change) && !batch.events.isEmpty) else { return }
        let document = batch.document
        let schedule = latest.withLock { state -> Bool in
            state.document = document
            if state.scheduled { return false }
            state.scheduled = true
            return true
        }
        if schedule { queue.async { self.writeLatest() } }
    }

    private func writeLatest() {
        let document = latest.withLock { state -> JSONValue? in
            let d = state.document
            state.document = nil
            state.scheduled = false
            return d
        }
        guard let document else { return }
        do {
            try AtomicFile.write(render(document), to: path)
            outcome.withLock { $0 = (WallTime.now(), nil) }
        } catch {
            logger.error("file sink: cannot write \(path): \(error)")
            outcome.withLock { $0.lastError = "\(error)" }
        }
    }

    private func render(_ document: JSONValue) -> String {
        switch format {
        case .json: JSONSerializer.serialize(document, pretty: pretty) + "\n"
        case .prometheus: PrometheusExposition.render(document)
        }
    }

    func status() -> SinkStatus {
        let queued = latest.withLock { $0.document == nil ? 0 : 1 }
        let (last, error) = outcome.withLock { ($0.lastWrite, $0.lastError) }
        return SinkStatus(type: "file", target: path, queued: queued, dropped: 0, lastDelivery: last, lastError: error)
    }

    func drain(timeout: Double) {
        let done = DispatchSemaphore(value: 0)
        queue.async { self.writeLatest(); done.signal() }
        _ = done.wait(timeout: .now() + timeout)
    }
}

/// write → fsync → rename → fsync(folder).
public enum AtomicFile {
    private static let temporarySerial = Atomic<UInt64>(0)

    public struct WriteError: Error, CustomStringConvertible {
        public var description: String
    }

    public static func write(_ text: String, to path: String) throws(WriteError) {
        let folder = directoryName(path)
        // A name of its own for every write: two writers of one path (an old and a new file
        // sink during a reload) must never share, truncate or rename each other's file.
        let temporary = "\(path).tmp.\(getpid()).\(temporarySerial.add(1, ordering: .relaxed).newValue)"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw WriteError(description: "open \(temporary): \(errnoText())") }
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
        let dirFD = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if dirFD >= 0 {
            fsync(dirFD)
            close(dirFD)
        }
    }
}
