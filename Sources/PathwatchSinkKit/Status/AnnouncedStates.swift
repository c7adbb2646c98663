import Glibc
import PathwatchBase
import PathwatchJSON
import PathwatchProbeKit
import Synchronization

/// The state each check was last announced in (its last change event), kept in
/// `<state_dir>/announced.json` across restarts. Without it a restart forgot what receivers had
/// been told: a check critical before a `kill -9` was announced again after it ("unknown →
/// critical") and receivers opened a second incident, while one that recovered during the
/// outage was never announced at all (a first sight of ok is news to nobody).
///
/// Only problem states are kept: a check missing from the file was last announced ok, or never,
/// so the file is as small as what is wrong. It is replaced atomically after the batch carrying
/// the events was handed to the sinks: a crash between the two repeats a change, as before,
/// rather than losing one.
package final class AnnouncedStates: Sendable {
    package struct Entry: Sendable, Equatable {
        package var probe: String
        package var state: CheckState

        package init(probe: String, state: CheckState) {
            self.probe = probe
            self.state = state
        }
    }

    /// A check whose changes a silence held from the notifiers: the state they were last sent
    /// (nil: none yet), so the change owed when the silence ends is told after a restart too.
    package struct Owed: Sendable, Equatable {
        package var probe: String
        package var told: CheckState?

        package init(probe: String, told: CheckState?) {
            self.probe = probe
            self.told = told
        }
    }

    /// What to write, numbered in the order the agent's pipeline took it.
    package struct Snapshot: Sendable {
        package var generation: UInt64
        package var entries: [String: Entry]
        package var owed: [String: Owed]

        package init(generation: UInt64, entries: [String: Entry], owed: [String: Owed] = [:]) {
            self.generation = generation
            self.entries = entries
            self.owed = owed
        }
    }

    package let path: String
    private let folder: String
    private let logger: AgentLogger
    /// The generation last written (an older snapshot never replaces a newer one), and whether
    /// the last write failed (said once until one succeeds).
    private let written = Mutex<(generation: UInt64, failing: Bool)>((0, false))

    package init(stateDirectory: String, logger: AgentLogger) {
        folder = stateDirectory
        path = stateDirectory + "/announced.json"
        self.logger = logger
    }

    /// What the file holds for the checks of `probes` (a removed probe's are forgotten); empty
    /// when there is no file, and when it cannot be read (said in the log).
    package func load(probes: Set<String>) -> [String: Entry] { loadWithOwed(probes: probes).entries }

    /// The announced states and what is owed to the notifiers (`Owed`) for the checks of
    /// `probes`, from one read of the file.
    package func loadWithOwed(probes: Set<String>) -> (entries: [String: Entry], owed: [String: Owed]) {
        guard let text = Self.readText(path, logger: logger) else { return ([:], [:]) }
        let document = try? JSONParser.parse(text)
        guard let checks = document?["checks"]?.objectValue else {
            logger.warning("\(path) is damaged; changes from before the restart may be announced again")
            return ([:], [:])
        }
        var entries: [String: Entry] = [:]
        for (id, value) in checks.members {
            guard let probe = value["probe"]?.stringValue, probes.contains(probe),
                let state = value["state"]?.stringValue.flatMap(Self.state(named:))
            else { continue }
            entries[id] = Entry(probe: probe, state: state)
        }
        var owed: [String: Owed] = [:]
        for (id, value) in document?["owed"]?.objectValue?.members ?? [] {
            guard let probe = value["probe"]?.stringValue, probes.contains(probe) else { continue }
            owed[id] = Owed(probe: probe, told: value["told"]?.stringValue.flatMap(Self.state(named:)))
        }
        return (entries, owed)
    }

    private static func state(named name: String) -> CheckState? { CheckState.allCases.first { $0.name == name } }

    /// Replaces the file with `snapshot` unless a newer one was written already.
    package func save(_ snapshot: Snapshot) {
        written.withLock { w in
            guard snapshot.generation > w.generation else { return }
            w.generation = snapshot.generation
            let checks = snapshot.entries.sorted { $0.key < $1.key }.map { id, entry in
                (
                    id,
                    JSONValue.object(
                        JSONObject([("probe", .string(entry.probe)), ("state", .string(entry.state.name))]))
                )
            }
            var members: [(String, JSONValue)] = [("checks", .object(JSONObject(checks)))]
            if !snapshot.owed.isEmpty {
                let owed = snapshot.owed.sorted { $0.key < $1.key }.map { id, entry in
                    (
                        id,
                        JSONValue.object(
                            JSONObject([
                                ("probe", .string(entry.probe)), ("told", entry.told.map { .string($0.name) } ?? .null),
                            ]))
                    )
                }
                members.append(("owed", .object(JSONObject(owed))))
            }
            let text = JSONSerializer.serialize(.object(JSONObject(members))) + "\n"
            if let problem = replace(with: text) {
                if !w.failing { logger.warning("cannot keep the announced states in \(path): \(problem)") }
                w.failing = true
            } else {
                w.failing = false
            }
        }
    }

    /// Writes a temporary file beside it, syncs it and renames it over the file; nil when done.
    private func replace(with text: String) -> String? {
        if mkdir(folder, 0o700) != 0 && errno != EEXIST { return "cannot create \(folder): \(errnoText())" }
        return AtomicFile.replace(path, folder: folder, with: Array(text.utf8), mode: 0o600)
    }

    /// The whole file, or nil when it is missing or unreadable.
    private static func readText(_ path: String, logger: AgentLogger) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            if errno != ENOENT { logger.warning("cannot read \(path): \(errnoText())") }
            return nil
        }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress!, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { break }
            bytes += chunk[..<n]
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
