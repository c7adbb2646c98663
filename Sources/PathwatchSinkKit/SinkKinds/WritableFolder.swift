import Glibc
import PathwatchBase

/// Whether the agent can write in a folder, asked when a configuration is checked: a sink's
/// state folder, a file sink's folder. Sinks ask it of their own settings (`SinkSettings.checkHost`).
package enum WritableFolder {
    /// Why nothing can be written in `folder`, or nil. With `mayCreate`, a missing folder is fine
    /// when its nearest existing parent can be written (the agent creates it).
    package static func problem(_ folder: String, mayCreate: Bool) -> String? {
        var info = stat()
        if stat(folder, &info) == 0 {
            guard (info.st_mode & S_IFMT) == S_IFDIR else { return "is not a folder" }
            return writeProblem(folder)
        }
        if errno == ENOTDIR { return "cannot be created: part of its path is a file, not a folder" }
        guard errno == ENOENT else { return "cannot be inspected: \(errnoText())" }
        guard mayCreate else { return "does not exist" }
        var parent = folder
        while true {
            let next = directoryName(parent)
            if next == parent { return "does not exist and cannot be created" }
            parent = next
            if stat(parent, &info) == 0 {
                guard (info.st_mode & S_IFMT) == S_IFDIR else { return "cannot be created: \(parent) is not a folder" }
                return writeProblem(parent).map { "does not exist and cannot be created: \(parent) \($0)" }
            }
        }
    }

    private static func writeProblem(_ folder: String) -> String? {
        guard access(folder, W_OK | X_OK) == 0 else {
            return errno == EROFS ? "is on a read-only file system" : "is not writable: \(errnoText())"
        }
        // access(2) says yes to root for any folder, /proc and /sys included, where nothing can
        // be created: only creating something tells. A file of our own, removed at once.
        let trial = "\(folder)/.pathwatch-write-check.\(getpid())"
        let fd = open(trial, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            // Someone else's file by that name: the folder was writable enough to hold it.
            if errno == EEXIST { return nil }
            return errno == EROFS ? "is on a read-only file system" : "does not let files be created: \(errnoText())"
        }
        close(fd)
        unlink(trial)
        return nil
    }
}
