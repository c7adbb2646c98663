import Glibc
import PathwatchAgent
import PathwatchBase
import PathwatchJSON
import PathwatchSinkKit

/// `pathwatch silence`: adds, lists and removes the silences the running agent reads from
/// `<state_dir>/silences.json` (SilenceFile), within a second, and keeps across restarts.
/// Only the configuration's `agent` section is read (the state folder, the quiet windows):
/// an operator's shell may lack the secrets a sink's `${env:…}` needs, as for `status`.
package enum SilenceCommand {
    package static let longest = ConfigDuration.seconds(366 * 86_400)

    /// `pathwatch silence CHECKS DURATION [--comment TEXT]`: CHECKS are comma-separated globs.
    package static func add(configFile: String, checks: String, duration: String, comment: String?) -> Int32 {
        let patterns = checks.split(separator: ",").map { String($0) }
        guard SilenceRule.validPatterns(patterns) else {
            printError(
                "silence: CHECKS: expected 1 to \(SilenceRule.maxPatterns) comma-separated globs (api/*,disk/root) of 1 to \(SilenceRule.maxPatternBytes) bytes"
            )
            return ExitStatus.configError
        }
        guard let length = ConfigDuration(parsing: duration), length.nanoseconds >= 1_000_000_000, length <= longest
        else {
            printError(
                "silence: DURATION: expected a duration from 1s to 366d (\"2h\", \"30m\"), found \"\(duration)\"")
            return ExitStatus.configError
        }
        if let comment, comment.utf8.count > 200 || comment.unicodeScalars.contains(where: { $0.value < 0x20 }) {
            printError("silence: --comment: expected one line of at most 200 bytes")
            return ExitStatus.configError
        }
        guard let file = silenceFile(configFile) else { return ExitStatus.configError }
        let now = WallTime.now()
        let entry = SilenceFile.Entry(
            id: String(EventID.make(at: now).suffix(12)), checks: patterns, from: now,
            until: WallTime(milliseconds: now.milliseconds + length.nanoseconds / 1_000_000), comment: comment)
        return change(file, now: now) { entries in
            guard entries.count < SilenceFile.maxEntries else {
                return "silence: \(SilenceFile.maxEntries) silences already; remove some first"
            }
            entries.append(entry)
            _ = AgentOutput.write(
                "silenced \(patterns.joined(separator: ",")) until \(entry.until.rfc3339): id \(entry.id)\n")
            return nil
        }
    }

    /// `pathwatch silence --remove ID`.
    package static func remove(configFile: String, id: String) -> Int32 {
        guard let file = silenceFile(configFile) else { return ExitStatus.configError }
        return change(file, now: .now()) { entries in
            guard let index = entries.firstIndex(where: { $0.id == id }) else {
                return "silence: no silence \(id.prefix(40)) in \(file.path) (pathwatch silence --list)"
            }
            let removed = entries.remove(at: index)
            _ = AgentOutput.write("removed silence \(removed.id) of \(removed.checks.joined(separator: ","))\n")
            return nil
        }
    }

    /// `pathwatch silence --list`: the silences in force or to come, then the configuration's windows.
    package static func list(configFile: String) -> Int32 {
        guard let (file, windows) = agentSettings(configFile) else { return ExitStatus.configError }
        switch file.read() {
        case .failure(let error):
            printError("silence: \(error)")
            return ExitStatus.failure
        case .success(let entries):
            let now = WallTime.now()
            var lines: [String] = []
            for entry in entries where !entry.rule.isOver(at: now) {
                lines.append(
                    "\(entry.id)  \(entry.checks.joined(separator: ","))  until \(entry.until.rfc3339)\(entry.comment.map { "  # \($0)" } ?? "")"
                )
            }
            for (i, window) in windows.enumerated() {
                lines.append(
                    "agent.quiet[\(i)]  \(window.rule.checks.joined(separator: ","))  \(window.written)\(window.comment.map { "  # \($0)" } ?? "")"
                )
            }
            _ = AgentOutput.write(lines.isEmpty ? "no silences\n" : lines.joined(separator: "\n") + "\n")
            return 0
        }
    }

    /// Reads, changes and writes the file under its lock; `body` returns an error to print.
    private static func change(_ file: SilenceFile, now: WallTime, _ body: (inout [SilenceFile.Entry]) -> String?)
        -> Int32
    {
        if mkdir(file.folder, 0o700) != 0 && errno != EEXIST {
            printError("silence: cannot create \(file.folder): \(errnoText())")
            return ExitStatus.failure
        }
        let outcome = file.locked { () -> String? in
            switch file.read() {
            case .failure(let error): return "silence: \(error); not changed"
            case .success(var entries):
                if let problem = body(&entries) { return problem }
                return file.write(entries, now: now).map { "silence: \($0)" }
            }
        }
        switch outcome {
        case .failure(let error):
            printError("silence: \(error)")
            return ExitStatus.failure
        case .success(let problem?):
            printError(problem)
            return ExitStatus.failure
        case .success(nil): return 0
        }
    }

    private static func silenceFile(_ configFile: String) -> SilenceFile? { agentSettings(configFile)?.file }

    /// The silences file and the quiet windows of the configuration's `agent` section.
    private static func agentSettings(_ configFile: String) -> (file: SilenceFile, windows: [QuietWindow])? {
        do throws(ConfigError) {
            let raw = try ConfigLoader.parse(ConfigLoader.readText(configFile), file: configFile)
            let path = JSONPath().appending("agent")
            let redactor = SecretRedactor()
            do {
                let substituted = try SecretSubstitution(redactor: redactor, baseDirectory: directoryName(configFile))
                    .apply(to: raw["agent"] ?? .object(JSONObject([])), at: path)
                let settings = try ConfigLoader.decoder(SinkRegistry([], whenNoneConfigured: [])).decode(
                    AgentSettings.self, from: substituted, at: path)
                let folder = resolvePath(settings.stateDir, relativeTo: directoryName(configFile))
                return (SilenceFile(stateDirectory: folder), settings.quiet)
            } catch {
                throw ConfigError(
                    file: configFile, location: error.path.description, message: redactor.redact(error.message))
            }
        } catch {
            printError(error.description)
            return nil
        }
    }
}
