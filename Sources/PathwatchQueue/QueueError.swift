import Glibc
import PathwatchBase

/// Why a queue call failed, in words that name the file and the system's reason, with the two
/// cases a caller treats differently: another owner holds the folder (wait for it to let go), and
/// the file system is out of space (hold what would be appended and offer it again later).
package struct QueueError: Error, CustomStringConvertible, Sendable {
    package var description: String
    /// The folder is locked by another owner (a sink being replaced, or another process).
    package var busy = false
    /// The file system is out of space (or quota): retrying later can succeed.
    package var diskFull = false

    package init(description: String, busy: Bool = false, diskFull: Bool = false) {
        self.description = description
        self.busy = busy
        self.diskFull = diskFull
    }

    /// From the errno of a failed call.
    static func errno(_ what: String, _ code: Int32 = Glibc.errno) -> QueueError {
        QueueError(description: "\(what): \(errnoText(code))", diskFull: code == ENOSPC || code == EDQUOT)
    }
}
