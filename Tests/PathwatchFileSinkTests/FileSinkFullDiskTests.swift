import Foundation
import PathwatchTestSupport
import Testing

/// The file sink writes its document in pieces as it renders it. On a disk that fills part-way
/// through a document, the file keeps the last whole document, no temporary file is left, the
/// agent says why, and the next document that fits is written.
@Suite(.onItsOwnThread) struct FileSinkFullDiskTests {
    @Test(.enabled(if: TestEnvironment.canUseNamespaces, Comment(rawValue: TestEnvironment.needsRootReason)))
    func aDocumentThatDoesNotFitLeavesTheLastWholeOne() throws {
        let dir = try FixturePlugins.folderWithTestProbe()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let stateFile = dir.appendingPathComponent("state")
        try stateLines(5, "ok").write(to: stateFile, atomically: true, encoding: .utf8)
        let out = dir.appendingPathComponent("out")
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        let config = try writeConfig(
            """
            {"agent": {"name": "full", "plugin_dirs": ["."], "interval": "200ms"},
             "probes": [{"id": "p", "plugin": "testprobe", "config": {"state_file": "\(stateFile.path)"}}],
             "sinks": [{"type": "file", "path": "out/status.json"}]}
            """, in: dir)
        // 256 KiB: the document of 400 checks of 1.5 KB messages fills it after a few pieces.
        let script =
            "mount -t tmpfs -o size=256k pathwatch-out \(out.path) && exec \(TestEnvironment.pathwatchBinary.path) run --config \(config.path)"
        let agent = try BackgroundProcess(["unshare", "--mount", "--propagation", "private", "sh", "-c", script])
        defer { _ = agent.stop() }
        // The tmpfs is the agent's own: read the folder through its mount namespace.
        let mounted = "/proc/\(agent.processIdentifier)/root\(out.path)"
        func checks() -> [[String: Any]]? {
            guard let text = try? String(contentsOfFile: mounted + "/status.json", encoding: .utf8),
                let document = try? parseJSONObject(text)
            else { return nil }
            return document["checks"] as? [[String: Any]]
        }
        func leftovers() -> [String] {
            ((try? FileManager.default.contentsOfDirectory(atPath: mounted)) ?? []).filter { $0.contains(".tmp.") }
        }
        try #require(waitUntil(timeout: 20) { checks()?.count == 5 }, "\(agent.errorOutput.suffix(2000))")

        try stateLines(400, "critical", message: String(repeating: "x", count: 1500)).write(
            to: stateFile, atomically: true, encoding: .utf8)
        try #require(
            waitUntil(timeout: 20) { agent.errorOutput.contains("file sink: cannot write") },
            "\(agent.errorOutput.suffix(2000))")
        #expect(agent.errorOutput.contains("o space left on device"), "\(agent.errorOutput.suffix(2000))")
        let kept = checks()
        #expect(kept?.count == 5, "the last whole document stays")
        #expect(kept?.allSatisfy { ($0["state"] as? String) == "ok" } == true)
        #expect(leftovers().isEmpty, "\(leftovers())")

        // The 400 checks stay in the document, gone unknown with short messages: it fits again.
        try stateLines(3, "warning").write(to: stateFile, atomically: true, encoding: .utf8)
        #expect(
            waitUntil(timeout: 20) { checks()?.filter { ($0["state"] as? String) == "warning" }.count == 3 },
            "a document that fits is written again: \(agent.errorOutput.suffix(2000))")
        #expect(leftovers().isEmpty, "\(leftovers())")
    }
}
