import Glibc
import PathwatchBase
import PathwatchSinkKit

/// The checks a file must pass before the agent will execute any of its code: a regular file,
/// owned by root or by the agent's user, and neither it nor its folder writable by group or
/// others (anyone who can write a plug-in can run code as the agent).
package enum PluginVetting {
    package static func refusal(forFile path: String) -> String? {
        var info = stat()
        guard stat(path, &info) == 0 else { return "cannot stat: \(errnoText())" }
        guard info.st_mode & S_IFMT == S_IFREG else { return "not a regular file" }
        if let problem = ownershipProblem(info, what: "file") { return problem }
        let folder = directoryName(realPath(path) ?? path)
        var folderInfo = stat()
        guard stat(folder, &folderInfo) == 0 else { return "cannot stat its folder \(folder): \(errnoText())" }
        if let problem = ownershipProblem(folderInfo, what: "folder \(folder)") { return problem }
        return nil
    }

    package static func ownershipProblem(_ info: stat, what: String) -> String? {
        let euid = geteuid()
        if info.st_uid != 0 && info.st_uid != euid {
            return "\(what) is owned by uid \(info.st_uid), not by root or the agent's user (uid \(euid))"
        }
        if info.st_mode & (S_IWGRP | S_IWOTH) != 0 {
            let who = info.st_mode & S_IWOTH != 0 ? "others" : "its group"
            return
                "\(what) is writable by \(who) (mode \(String(info.st_mode & 0o7777, radix: 8))); refusing to load code anyone else can change"
        }
        return nil
    }

    package static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}
