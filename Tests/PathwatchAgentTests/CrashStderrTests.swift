import Foundation
import PathwatchTestSupport
import Testing

/// A plug-in child that dies of a signal is reported with the last lines it wrote to stderr: a
/// Swift plug-in's runtime prints why it traps ("Fatal error: Index out of range") just before
/// the signal. What the child printed passes the agent's redactor first: the probe's config may
/// hold a secret, and the plug-in may print it.
@Suite(.onItsOwnThread) struct CrashStderrTests {
    @Test func aCrashCarriesTheLastLinesOfStderrRedacted() throws {
        let dir = try TestEnvironment.makeTemporaryDirectory()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        chmod(dir.path, 0o755)
        try FixturePlugins.build("hostile_probe.c", as: "hostile", into: dir)
        let secret = "s3cr3t-crash-token-4711"
        let config = try writeConfig(
            """
            {"agent": {"plugin_dirs": ["."], "interval": "1s"}, "probes": [
             {"id": "say", "plugin": "hostile", "config": {"do": "say_then_segfault",
              "say": "Fatal error: Index out of range (token ${env:PW_CRASH_SECRET})"}}],
             "sinks": [{"type": "file", "path": "status.json", "pretty": false}]}
            """, in: dir)
        let agent = try BackgroundProcess(
            [TestEnvironment.pathwatchBinary.path, "run", "--config", config.path],
            environment: ["PW_CRASH_SECRET": secret])
        defer { agent.stop() }
        // The fault handler's line ends it, naming the plug-in and the call (CrashNamingTests).
        let prefix =
            "plug-in crashed: SIGSEGV (signal 11) during sample of probe say; "
            + "its last stderr: note: started | Fatal error: Index out of range (token [redacted]) | "
            + "pathwatch: SIGSEGV (signal 11) in plug-in hostile during sample at "
        let status = dir.appendingPathComponent("status.json")
        let (document, expected) = try waitFor("the crash in the status document", timeout: 30) {
            () -> ([String: Any], String)? in
            guard let text = try? String(contentsOf: status, encoding: .utf8), let doc = try? parseJSONObject(text)
            else { return nil }
            let probe = (doc["probes"] as? [[String: Any]])?.first { $0["id"] as? String == "say" }
            guard let error = probe?["last_error"] as? String, error.hasPrefix(prefix) else { return nil }
            return (doc, error)
        }
        let check = (document["checks"] as? [[String: Any]])?.first { $0["id"] as? String == "say" }
        #expect(check?["message"] as? String == expected, "\(document)")
        #expect(
            agent.errorOutput.contains("probe say: \(expected)"), "the log line: \(agent.errorOutput.suffix(2_000))")
        let written = (try? String(contentsOf: status, encoding: .utf8)) ?? ""
        #expect(
            !written.contains(secret) && !agent.errorOutput.contains(secret)
                && !agent.outputLines.joined().contains(secret))
    }

    /// An optimised Swift plug-in stops on a failed runtime check with a trap instruction and
    /// prints nothing: the crash was "SIGILL" and no more. The child's fault handler now says
    /// where (the library and the offset, for addr2line) and what a trap there means.
    @Test func aTrapSaysWhereAndWhatATrapMeans() throws {
        let dir = try TestEnvironment.makeTemporaryDirectory()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        chmod(dir.path, 0o755)
        let library = try FixturePlugins.build("hostile_probe.c", as: "hostile", into: dir)
        let config = try writeConfig(
            """
            {"agent": {"plugin_dirs": ["."], "interval": "1s"}, "probes": [{"id": "t", "plugin": "hostile", "config": {"do": "trap"}}]}
            """, in: dir)
        let result = try run([TestEnvironment.pathwatchBinary.path, "once", "--config", config.path])
        let doc = try parseJSONObject(result.stdout)
        let message =
            ((doc["checks"] as? [[String: Any]])?.first { $0["id"] as? String == "t" }?["message"] as? String) ?? ""
        #expect(
            message.hasPrefix("plug-in crashed: SIGILL (signal 4)")
                || message.hasPrefix("plug-in crashed: SIGTRAP (signal 5)"), "\(message)")
        #expect(message.contains("its last stderr: pathwatch: SIG"), "\(message)")
        #expect(
            message.contains(" at \(library.resolvingSymlinksInPath().path)+0x")
                || message.contains(" at \(library.path)+0x"), "\(message)")
        #expect(message.contains("a trap instruction, a runtime check that failed"), "\(message)")
    }
}
