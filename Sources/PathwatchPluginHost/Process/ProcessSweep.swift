import CChildProcess
import Glibc
import PathwatchSinkKit

/// Ends what a plug-in left running. A plug-in child leads a session of its own, so every process
/// the plug-in starts is in that session, or below one that is (a command the exec plug-in runs in
/// a session of its own, say) while its parent lives. When the agent kills a child it first ends
/// that tree, parent links still in place; when a child has ended, what is left in its session.
/// Thousands of forked processes no longer outlive a stop or a restart of their plug-in.
package enum ProcessSweep {
    package struct Entry: Equatable {
        package var parent: pid_t
        package var session: pid_t
    }

    /// Every live process (zombies left out: they are already ended) with its parent and session.
    package static func table() -> [pid_t: Entry] {
        var entries: [pid_t: Entry] = [:]
        guard let folder = opendir("/proc") else { return entries }
        defer { closedir(folder) }
        while let item = readdir(folder) {
            let name = withUnsafeBytes(of: item.pointee.d_name) { bytes in
                String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
            }
            guard let pid = pid_t(name), pid > 0, let entry = entry(of: pid) else { continue }
            entries[pid] = entry
        }
        return entries
    }

    /// The processes of `root`'s tree in `table`, `root` left out: those in its session, and those
    /// below `root` or below one of them by parent links.
    package static func tree(of root: pid_t, in table: [pid_t: Entry]) -> Set<pid_t> {
        var members = Set(table.compactMap { $0.key != root && $0.value.session == root ? $0.key : nil })
        var grew = true
        while grew {
            grew = false
            for (pid, entry) in table where pid != root && !members.contains(pid) {
                if entry.parent == root || members.contains(entry.parent) {
                    members.insert(pid)
                    grew = true
                }
            }
        }
        return members
    }

    /// SIGKILL to every process of `root`'s tree, looked for again until none is left (a process
    /// may fork while the others are killed), for a bounded number of rounds. How many were sent.
    @discardableResult
    package static func end(treeOf root: pid_t) -> Int {
        var sent = 0
        for _ in 0..<20 {
            let found = tree(of: root, in: table())
            if found.isEmpty { break }
            for pid in found where kill(pid, SIGKILL) == 0 { sent += 1 }
        }
        return sent
    }

    private static func entry(of pid: pid_t) -> Entry? {
        var place = pw_place()
        guard pw_place_of(pid, &place) == 0, place.state != CChar(UInt8(ascii: "Z")),
            place.state != CChar(UInt8(ascii: "X"))
        else { return nil }
        return Entry(parent: place.parent, session: place.session)
    }
}
