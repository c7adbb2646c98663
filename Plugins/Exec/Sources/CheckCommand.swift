import PathwatchJSON
import PathwatchProbeKit

/// One configured command, checked: what to run, with which environment, for how long.
struct CheckCommand: Sendable {
    /// Every command starts with these; `env` adds to them or replaces them.
    ///
    /// UTF-8 characters through `LC_CTYPE` alone, not `LANG`: C.UTF-8's other categories are the
    /// C locale's, but named through `LANG` each is a file a command that calls `setlocale` opens
    /// and maps, and its messages a catalogue it looks for: 61 system calls more than with
    /// `LC_CTYPE` for each run of `check_dummy` (58 for `check_tcp`), and 100,000 instructions,
    /// a third of what `check_dummy` ran.
    static let baseEnvironment: [(String, String)] = [
        ("PATH", "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"), ("LC_CTYPE", "C.UTF-8"),
    ]

    /// Variables that name a command's locale as a whole: given one, the base `LC_CTYPE` goes, as
    /// it would outrank that locale's character set.
    static let wholeLocaleVariables: Set<String> = ["LANG", "LC_ALL"]

    let name: String
    let argv: [String]
    /// `KEY=value` strings, the whole environment the command gets.
    let environment: [String]
    /// The command's own limit; nil leaves it to the sample's deadline.
    let timeout: ConfigDuration?
    let format: OutputFormat
    /// Names and kinds as 0.1.0 made them (`legacy_names`): a bridge for one release.
    let legacyNames: Bool

    init(_ config: ExecConfig.CommandConfig, at path: JSONPath) throws {
        guard !config.name.isEmpty, config.name.utf8.count <= 200,
            config.name.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value != 0x7F })
        else {
            throw ProbeConfigError(
                path: path.appending("name"), message: "expected 1–200 printable characters without spaces")
        }
        // The name is the check's key, printed in every log line and on the page: no C1 control,
        // bidirectional override or line separator either.
        if let problem = TextSafety.problem(in: config.name) {
            throw ProbeConfigError(
                path: path.appending("name"), message: "expected printable characters; found \(problem)")
        }
        guard let program = config.command.first, !program.isEmpty, program.utf8.count < 4096 else {
            throw ProbeConfigError(
                path: path.appending("command"),
                message:
                    "expected an argument vector with the program first, e.g. [\"/usr/lib/nagios/plugins/check_load\", \"-w\", \"5,4,3\"]"
            )
        }
        // A relative path would be resolved against the agent's working folder, which nothing
        // fixes (`/` under the unit, wherever `pathwatch run` was started otherwise): refused.
        if program.contains("/"), !program.hasPrefix("/") {
            throw ProbeConfigError(
                path: path.appending("command").appending(index: 0),
                message:
                    "\"\(PerfDataParser.shown(program))\" is a relative path; write the program's absolute path (a name without a slash is looked up in PATH)"
            )
        }
        if let bad = config.command.firstIndex(where: { $0.utf8.contains(0) }) {
            throw ProbeConfigError(
                path: path.appending("command").appending(index: bad), message: "an argument cannot hold a NUL byte")
        }
        var environment = Self.baseEnvironment
        for (key, value) in (config.env ?? [:]).sorted(by: { $0.key < $1.key }) {
            guard Self.isVariableName(key) else {
                throw ProbeConfigError(
                    path: path.appending("env").appending(key),
                    message: "expected a variable name ([A-Za-z_][A-Za-z0-9_]*)")
            }
            // Never the value in a message: it may be a secret.
            guard !value.utf8.contains(0) else {
                throw ProbeConfigError(
                    path: path.appending("env").appending(key), message: "a value cannot hold a NUL byte")
            }
            if key == "PATH", let entry = Self.relativeEntry(value) {
                throw ProbeConfigError(
                    path: path.appending("env").appending(key),
                    message:
                        "entry \(entry) of PATH is not an absolute folder (an empty entry or a relative one means the agent's working folder)"
                )
            }
            environment.removeAll { $0.0 == key }
            environment.append((key, value))
        }
        if let env = config.env, env["LC_CTYPE"] == nil, env.keys.contains(where: Self.wholeLocaleVariables.contains) {
            environment.removeAll { $0.0 == "LC_CTYPE" }
        }
        if let timeout = config.timeout, timeout.nanoseconds <= 0 {
            throw ProbeConfigError(path: path.appending("timeout"), message: "expected a duration above zero")
        }
        name = config.name
        argv = config.command
        self.environment = environment.map { "\($0.0)=\($0.1)" }
        timeout = config.timeout
        format = config.format ?? .nagios
        legacyNames = config.legacyNames ?? false
    }

    /// The position (1-based) of the first entry of a PATH value that is not an absolute
    /// folder: empty (the working folder, to execvp) or relative.
    static func relativeEntry(_ value: String) -> Int? {
        let entries = value.split(separator: ":", omittingEmptySubsequences: false)
        return entries.firstIndex { !$0.hasPrefix("/") }.map { $0 + 1 }
    }

    private static func isVariableName(_ key: String) -> Bool {
        guard let first = key.utf8.first, first == UInt8(ascii: "_") || isLetter(first) else { return false }
        return key.utf8.allSatisfy { $0 == UInt8(ascii: "_") || isLetter($0) || ($0 >= 0x30 && $0 <= 0x39) }
    }

    private static func isLetter(_ b: UInt8) -> Bool { (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) }
}
