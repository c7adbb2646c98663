import Glibc
import PathwatchBase
import PathwatchJSON

/// Checks that need the host, not just the file: folders a sink will write to, and time budgets
/// that only make sense together. Each names the JSON path an operator must change.
package enum ConfigHostChecks {
    /// Each sink's own checks on this host (folders it writes, libraries it loads), and what
    /// it holds under its canonical spelling: two sinks naming one file through a link or `..`
    /// are caught here, where `ConfigLoader.validate` compares only the text.
    static func checkSinks(_ config: AgentConfig, file: String) throws(ConfigError) {
        let context = SinkHostContext(
            baseDirectory: directoryName(file),
            stateDirectory: resolvePath(config.agent.stateDir, relativeTo: directoryName(file)))
        var claimed: [String: Int] = [:]
        for (i, sink) in config.sinks.enumerated() {
            let claim: SinkClaim?
            do {
                claim = try sink.settings.checkHost(context)
            } catch {
                switch error.place {
                case .field(let field):
                    throw ConfigError(file: file, location: "sinks[\(i)].\(field)", message: error.message)
                case .location(let location): throw ConfigError(file: file, location: location, message: error.message)
                }
            }
            guard let claim else { continue }
            let key = "\(sink.type)\n\(claim.key)"
            if let first = claimed[key] {
                throw ConfigError(
                    file: file, location: "sinks[\(i)].\(claim.field)",
                    message: "\(claim.clash) (already used by sinks[\(first)], spelled differently)")
            }
            claimed[key] = i
        }
    }

    /// Why nothing can be written in `folder`, or nil. With `mayCreate`, a missing folder is fine
    /// when its nearest existing parent can be written (the agent creates it).
    package static func writableFolderProblem(_ folder: String, mayCreate: Bool) -> String? {
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

    /// A plug-in's own `timeout` (a target's, say) must end before the probe's: otherwise a hung
    /// endpoint shows `unknown` ("timed out") instead of the `critical` the plug-in would report.
    /// Convention (documented in the header): any `timeout` duration inside a probe's config is
    /// time the plug-in may spend inside one sample.
    static func checkPluginTimeouts(_ loaded: LoadedConfig) throws(ConfigError) {
        for (i, probe) in loaded.config.probes.enumerated() {
            let budget = loaded.timeout(of: probe)
            let base = JSONPath([.key("probes"), .index(i), .key("config")])
            if let (path, found) = firstTimeout(in: probe.config, at: base, notBelow: budget) {
                let source =
                    probe.timeout != nil
                    ? "probes[\(i)].timeout" : probe.interval != nil ? "probes[\(i)].interval" : "agent.interval"
                throw ConfigError(
                    file: loaded.file, location: path.description,
                    message: "\(found) is not shorter than the probe's timeout \(budget) (from \(source)): "
                        + "a hung call would show unknown instead of critical; lower it or raise probes[\(i)].timeout")
            }
        }
    }

    private static func firstTimeout(in value: JSONValue, at path: JSONPath, notBelow budget: ConfigDuration) -> (
        JSONPath, ConfigDuration
    )? {
        switch value {
        case .object(let object):
            for member in object.members {
                let here = path.appending(member.key)
                if member.key == "timeout", case .string(let text) = member.value,
                    let d = ConfigDuration(parsing: text), d >= budget
                {
                    return (here, d)
                }
                if let found = firstTimeout(in: member.value, at: here, notBelow: budget) { return found }
            }
        case .array(let items):
            for (i, item) in items.enumerated() {
                if let found = firstTimeout(in: item, at: path.appending(index: i), notBelow: budget) { return found }
            }
        default:
            break
        }
        return nil
    }
}
