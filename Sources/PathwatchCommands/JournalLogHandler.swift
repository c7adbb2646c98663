import Glibc
import Logging

/// Under systemd, stderr is the journal: a line starting `<N>` is stored at syslog priority N
/// (sd-daemon(3)), and the journal stamps it itself, so the line carries no timestamp of its own.
struct JournalLogHandler: LogHandler {
    var logLevel: Logger.Level = .info
    var metadata: Logger.Metadata = [:]

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var line = "<\(Self.priority(event.level))>\(event.message)"
        let all = metadata.merging(event.metadata ?? [:]) { $1 }
        if !all.isEmpty {
            line += " " + all.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        }
        let bytes = Array((line + "\n").utf8)
        bytes.withUnsafeBytes { _ = write(STDERR_FILENO, $0.baseAddress, $0.count) }
    }

    /// swift-log's levels on syslog's priorities (sd-daemon.h: SD_DEBUG 7 … SD_CRIT 2).
    static func priority(_ level: Logger.Level) -> Int {
        switch level {
        case .trace, .debug: 7
        case .info: 6
        case .notice: 5
        case .warning: 4
        case .error: 3
        case .critical: 2
        }
    }
}

/// `JOURNAL_STREAM` is `device:inode` of the stream systemd connected to stdout/stderr; it
/// applies only while stderr is still that stream (systemd.exec(5)): a child whose stderr was
/// redirected inherits the variable but not the journal.
enum JournalStream {
    static let isStandardError: Bool = {
        guard let raw = getenv("JOURNAL_STREAM") else { return false }
        let parts = String(cString: raw).split(separator: ":")
        guard parts.count == 2, let device = UInt64(parts[0]), let inode = UInt64(parts[1]) else { return false }
        var info = stat()
        guard fstat(STDERR_FILENO, &info) == 0 else { return false }
        return UInt64(info.st_dev) == device && UInt64(info.st_ino) == inode
    }()
}
