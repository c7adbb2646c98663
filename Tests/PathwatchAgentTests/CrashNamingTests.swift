import Foundation
import PathwatchTestSupport
import Testing

/// A plug-in's fatal fault names its cause wherever it happens. Inline, the crash is the agent's
/// own: its fault handler writes one line naming the signal, the plug-in, the call, the probe and
/// where (FILE+0xOFFSET) before the runtime's backtracer runs, where the log used to end in the
/// agent's own backtrace with no word of the plug-in. In a child the same line ends its stderr,
/// which the agent reports with the crash; `plugins --try` prints it too, with the same name for
/// the same signal.
@Suite(.onItsOwnThread) struct CrashNamingTests {
    let pathwatch = TestEnvironment.pathwatchBinary.path

    /// A trap instruction is SIGILL on x86 and SIGTRAP on arm64.
    #if arch(x86_64)
        static let trapSignal = "SIGILL (signal 4)"
    #else
        static let trapSignal = "SIGTRAP (signal 5)"
    #endif

    /// A folder holding the hostile C plug-in and the Swift one whose sample fails a precondition.
    func fixtures() throws -> (dir: URL, hostile: String, swift: String) {
        let dir = try TestEnvironment.makeTemporaryDirectory()
        chmod(dir.path, 0o755)
        let hostile = try FixturePlugins.build("hostile_probe.c", as: "hostile", into: dir)
        let swift = try FixturePlugins.buildSwift("precondition_probe.swift", as: "precondition", into: dir)
        // As the process's maps name them: /tmp//x is /tmp/x there.
        return (dir, hostile.resolvingSymlinksInPath().path, swift.resolvingSymlinksInPath().path)
    }

    /// `once` with one probe in `isolation`; the process's result.
    func once(_ dir: URL, plugin: String, probe: String, mode: String?, isolation: String) throws -> ProcessResult {
        let config = try writeConfig(
            """
            {"agent": {"plugin_dirs": ["."], "isolation": "\(isolation)"}, "probes": [
             {"id": "\(probe)", "plugin": "\(plugin)", "timeout": "20s", "config": {\(mode.map { #""do": "\#($0)""# } ?? "")}}]}
            """, in: dir, name: "\(probe)-\(isolation).json")
        return try run([pathwatch, "once", "--config", config.path, "--format", "json"], timeout: 180)
    }

    /// The line the fault handler writes, up to where it says the place: `library`'s path and an
    /// offset, or any library's (a Swift precondition traps in the runtime's library) when nil.
    func faultLine(_ signal: String, plugin: String, call: String, probe: String?, library: String?) -> String {
        "pathwatch: \(signal) in plug-in \(plugin) during \(call)\(probe.map { " of probe \($0)" } ?? "") at "
            + (library.map { "\($0)+0x" } ?? "/")
    }

    /// The fault line in `text` says where, as a library and an offset in it.
    func saysWhere(_ text: String, after line: String) -> Bool {
        guard let start = text.range(of: line) else { return false }
        let rest = text[start.lowerBound...].prefix { $0 != "\n" && $0 != "|" }
        return rest.contains(".so") && rest.contains("+0x")
    }

    @Test func anInlineSegfaultNamesThePluginTheProbeTheCallAndWhere() throws {
        let (dir, hostile, _) = try fixtures()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let result = try once(dir, plugin: "hostile", probe: "segv", mode: "segfault", isolation: "inline")
        #expect(result.status != 0 && !result.timedOut)
        let line = faultLine("SIGSEGV (signal 11)", plugin: "hostile", call: "sample", probe: "segv", library: hostile)
        #expect(result.stderr.contains(line), "\(result.stderr.suffix(3_000))")
    }

    /// The handler runs on a stack of its own: a plug-in that overflowed its thread's stack, where
    /// no handler could run, is named too, inline and in a child.
    @Test func aStackOverflowIsNamedToo() throws {
        let (dir, hostile, _) = try fixtures()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let inline = try once(dir, plugin: "hostile", probe: "deep", mode: "overflow", isolation: "inline")
        let line = faultLine("SIGSEGV (signal 11)", plugin: "hostile", call: "sample", probe: "deep", library: hostile)
        #expect(inline.status != 0 && inline.stderr.contains(line), "\(inline.stderr.suffix(3_000))")
        let isolated = try once(dir, plugin: "hostile", probe: "deep", mode: "overflow", isolation: "process")
        let doc = try parseJSONObject(isolated.stdout)
        let cause =
            (doc["checks"] as? [[String: Any]])?.first { $0["id"] as? String == "deep" }?["message"] as? String ?? ""
        #expect(
            cause.contains(
                faultLine("SIGSEGV (signal 11)", plugin: "hostile", call: "sample", probe: nil, library: hostile)),
            "\(cause)")
    }

    /// Loading is the plug-in's code too (its constructors, its entry point): an agent that loads
    /// an inline plug-in itself names the file when a constructor crashes it.
    @Test func aCrashWhileLoadingInlineNamesTheFile() throws {
        let dir = try TestEnvironment.makeTemporaryDirectory()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        chmod(dir.path, 0o755)
        let library = try FixturePlugins.build(
            "hostile_probe.c", as: "crashy", into: dir, defines: ["CRASH_IN_CONSTRUCTOR", #"HOSTILE_NAME="crashy""#])
        let result = try once(dir, plugin: "crashy", probe: "c", mode: nil, isolation: "inline")
        let path = library.resolvingSymlinksInPath().path
        #expect(result.status != 0 && !result.timedOut)
        #expect(result.stderr.contains("pathwatch: SIGSEGV (signal 11) in plug-in "), "\(result.stderr.suffix(3_000))")
        #expect(result.stderr.contains("libcrashy.so during load at \(path)+0x"), "\(result.stderr.suffix(3_000))")
    }

    @Test func anInlinePreconditionIsNamedAfterItsMessage() throws {
        let (dir, _, _) = try fixtures()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let result = try once(dir, plugin: "precondition", probe: "pre", mode: nil, isolation: "inline")
        #expect(result.status != 0 && !result.timedOut)
        let stderr = result.stderr
        let message = stderr.range(of: "Precondition failed: the sample found no targets")
        let expected = faultLine(Self.trapSignal, plugin: "precondition", call: "sample", probe: "pre", library: nil)
        let line = stderr.range(of: expected)
        #expect(message != nil && line != nil && saysWhere(stderr, after: expected), "\(stderr.suffix(3_000))")
        if let message, let line { #expect(message.lowerBound < line.lowerBound, "\(stderr.suffix(3_000))") }
    }

    /// In a child the runtime's line is followed by its stack trace and the fault's line: the
    /// agent's cause keeps the runtime's line however many follow it, and ends with the fault's.
    @Test func anIsolatedPreconditionKeepsItsMessageInTheCause() throws {
        let (dir, _, swift) = try fixtures()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let result = try once(dir, plugin: "precondition", probe: "pre", mode: nil, isolation: "process")
        let doc = try parseJSONObject(result.stdout)
        let check = (doc["checks"] as? [[String: Any]])?.first { $0["id"] as? String == "pre" }
        let cause = check?["message"] as? String ?? ""
        #expect(cause.hasPrefix("plug-in crashed: \(Self.trapSignal) during sample of probe pre; its last stderr: "))
        #expect(cause.contains("Precondition failed: the sample found no targets"), "\(cause)")
        let expected = faultLine(Self.trapSignal, plugin: "precondition", call: "sample", probe: nil, library: nil)
        #expect(cause.contains(expected) && saysWhere(cause, after: expected), "\(cause)")
        #expect(cause.hasSuffix("a debug build prints its message)"), "\(cause)")

        // `plugins --try` shows the runtime's message first and the fault line after it.
        let trial = try run([pathwatch, "plugins", "--try", swift, "--timeout", "60"], timeout: 180)
        #expect(trial.stdout.contains("plug-in crashed: \(Self.trapSignal) during sample"), "\(trial.stdout)")
        #expect(trial.stdout.contains("Precondition failed: the sample found no targets"), "\(trial.stdout)")
        #expect(trial.stdout.contains(expected), "\(trial.stdout)")
    }

    /// One fault, three ways of running it: `plugins --try`, inline and a child name the signal
    /// alike, each with the fault handler's line. abort() stops in the C library's raise, which
    /// the line names as where.
    @Test(arguments: ["segfault", "trap", "abort"])
    func theSameFaultIsNamedTheSameEverywhere(mode: String) throws {
        let (dir, hostile, _) = try fixtures()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let signal = ["segfault": "SIGSEGV (signal 11)", "trap": Self.trapSignal, "abort": "SIGABRT (signal 6)"][mode]!
        let library = mode == "abort" ? nil : hostile
        let trial = try run(
            [pathwatch, "plugins", "--try", hostile, "--probe-config", #"{"do": "\#(mode)"}"#, "--timeout", "60"],
            timeout: 180)
        #expect(trial.stdout.contains("plug-in crashed: \(signal) during sample"), "\(trial.stdout)")
        let line = faultLine(signal, plugin: "hostile", call: "sample", probe: nil, library: library)
        #expect(trial.stdout.contains(line) && saysWhere(trial.stdout, after: line), "\(trial.stdout)")

        let inline = try once(dir, plugin: "hostile", probe: "p", mode: mode, isolation: "inline")
        let inlineLine = faultLine(signal, plugin: "hostile", call: "sample", probe: "p", library: library)
        #expect(
            inline.stderr.contains(inlineLine) && saysWhere(inline.stderr, after: inlineLine),
            "\(inline.stderr.suffix(3_000))")

        let isolated = try once(dir, plugin: "hostile", probe: "p", mode: mode, isolation: "process")
        let doc = try parseJSONObject(isolated.stdout)
        let cause =
            (doc["checks"] as? [[String: Any]])?.first { $0["id"] as? String == "p" }?["message"] as? String ?? ""
        #expect(cause.hasPrefix("plug-in crashed: \(signal) during sample of probe p; its last stderr: "), "\(cause)")
        #expect(cause.contains(line) && saysWhere(cause, after: line), "\(cause)")
    }
}
