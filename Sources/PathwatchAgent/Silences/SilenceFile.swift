import Glibc
import PathwatchBase
import PathwatchJSON
import PathwatchSinkKit

/// The silences `pathwatch silence` adds, kept in `<state_dir>/silences.json` so they outlast
/// a restart: the command writes the file (whole, atomically, one writer at a time under a
/// lock), the running agent reads it when it changes. A file is the channel rather than a
/// request to the agent: a silence added while the agent is stopped holds when it starts, and
/// the command needs no more right than the state folder's.
package struct SilenceFile: Sendable {
    /// One silence: which checks, until when, and why.
    package struct Entry: Sendable, Equatable {
        package var id: String
        package var checks: [String]
        package var from: WallTime
        package var until: WallTime
        package var comment: String?

        package init(id: String, checks: [String], from: WallTime, until: WallTime, comment: String?) {
            self.id = id
            self.checks = checks
            self.from = from
            self.until = until
            self.comment = comment
        }

        package var rule: SilenceRule {
            SilenceRule(checks: checks, when: .between(from: from.milliseconds, until: until.milliseconds))
        }
    }

    package static let maxEntries = 1_000
    static let maxBytes = 1 << 20

    package let folder: String
    package var path: String { folder + "/silences.json" }

    package init(stateDirectory: String) { folder = stateDirectory }

    /// What identifies the file's content: a change of any means it was replaced.
    package struct Stamp: Equatable, Sendable {
        var inode: UInt64
        var modified: Int64
        var size: Int64
    }

    /// The file's stamp; nil when there is none.
    package func stamp() -> Stamp? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return Stamp(
            inode: UInt64(info.st_ino),
            modified: Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec),
            size: Int64(info.st_size))
    }

    /// The silences in the file: none when there is no file; an error naming the file and what
    /// is wrong when it cannot be read.
    package func read() -> Result<[Entry], SilenceFileError> {
        var info = stat()
        guard stat(path, &info) == 0 else {
            return errno == ENOENT ? .success([]) : .failure(SilenceFileError("cannot read \(path): \(errnoText())"))
        }
        let text: String
        do {
            text = try BoundedFile.readText(path, limit: Self.maxBytes)
        } catch {
            return .failure(SilenceFileError("cannot read \(path): \(error)"))
        }
        guard let list = (try? JSONParser.parse(text))?["silences"]?.arrayValue else {
            return .failure(SilenceFileError("\(path) is not a silences file (expected {\"silences\": […]})"))
        }
        var entries: [Entry] = []
        for (i, value) in list.prefix(Self.maxEntries).enumerated() {
            guard let entry = Self.entry(value) else {
                return .failure(SilenceFileError("\(path): silences[\(i)] is damaged"))
            }
            entries.append(entry)
        }
        return .success(entries)
    }

    private static func entry(_ value: JSONValue) -> Entry? {
        guard let id = value["id"]?.stringValue, let checks = value["checks"]?.arrayValue?.compactMap(\.stringValue),
            SilenceRule.validPatterns(checks), let from = value["from"]?.stringValue.flatMap(SilenceTime.parse),
            let until = value["until"]?.stringValue.flatMap(SilenceTime.parse)
        else { return nil }
        return Entry(id: id, checks: checks, from: from, until: until, comment: value["comment"]?.stringValue)
    }

    /// Replaces the file with `entries` (those over at `now` left out), under the folder's
    /// silences lock; the file takes the folder's owner, so an agent running as the service's
    /// user reads what root wrote.
    package func write(_ entries: [Entry], now: WallTime) -> SilenceFileError? {
        let kept = entries.filter { !$0.rule.isOver(at: now) }
        let list: [JSONValue] = kept.map { entry in
            var members: [(String, JSONValue)] = [
                ("id", .string(entry.id)), ("checks", .array(entry.checks.map(JSONValue.string))),
                ("from", .string(entry.from.rfc3339)), ("until", .string(entry.until.rfc3339)),
            ]
            if let comment = entry.comment { members.append(("comment", .string(comment))) }
            return .object(JSONObject(members))
        }
        let text = JSONSerializer.serialize(.object(JSONObject([("silences", .array(list))])), pretty: true) + "\n"
        if let problem = AtomicFile.replace(path, folder: folder, with: Array(text.utf8), mode: 0o644) {
            return SilenceFileError("cannot write \(path): \(problem)")
        }
        var folderInfo = stat()
        if geteuid() == 0, stat(folder, &folderInfo) == 0 { _ = chown(path, folderInfo.st_uid, folderInfo.st_gid) }
        return nil
    }

    /// Runs `body` holding the folder's silences lock (`silences.lock`): one writer at a time.
    package func locked<T>(_ body: () -> T) -> Result<T, SilenceFileError> {
        let fd = open(folder + "/silences.lock", O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { return .failure(SilenceFileError("cannot open \(folder)/silences.lock: \(errnoText())")) }
        defer { close(fd) }
        while flock(fd, LOCK_EX) != 0 {
            guard errno == EINTR else {
                return .failure(SilenceFileError("cannot lock \(folder)/silences.lock: \(errnoText())"))
            }
        }
        return .success(body())
    }
}

package struct SilenceFileError: Error, CustomStringConvertible {
    package var description: String
    init(_ description: String) { self.description = description }
}
