import Glibc
import PathwatchBase

/// Where a pushing sink keeps its queue: `<state_dir>/<type>-<16 hex digits>`, the digits a
/// 64-bit FNV-1a of what identifies the receiver's stream (`PushSpec.folderKey`: the URL, and
/// for a webhook its format too), never of a secret or a header, so rotating a token keeps the
/// queue. The key is hashed, never written, since a URL may carry a token.
package enum QueueFolder {
    package static func name(type: String, key: String) -> String {
        let hex = String(FNV1a.hash(key.utf8), radix: 16)
        return "\(type)-" + String(repeating: "0", count: 16 - hex.count) + hex
    }

    /// Moves a queue folder a release named differently (`former`, beside `folder`) to its
    /// current name, so the backlog it holds is delivered after the upgrade. Nothing happens
    /// when the current folder exists (its queue wins) or the former one does not. The rename
    /// is made durable (the parent folder is synced) before the queue is opened. Nil on
    /// success or when there was nothing to move; otherwise why it failed.
    package static func migrate(from former: String, to folder: String) -> String? {
        guard access(folder, F_OK) != 0, errno == ENOENT, access(former, F_OK) == 0 else { return nil }
        guard rename(former, folder) == 0 else { return "cannot rename \(former) to \(folder): \(errnoText(errno))" }
        let parent = String(folder[..<(folder.lastIndex(of: "/") ?? folder.startIndex)])
        let fd = open(parent.isEmpty ? "." : parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if fd >= 0 {
            _ = fsync(fd)
            close(fd)
        }
        return nil
    }
}
