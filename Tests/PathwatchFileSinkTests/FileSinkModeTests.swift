import Foundation
import PathwatchTestSupport
import Testing

@testable import PathwatchAgent
@testable import PathwatchSinkTestSupport

/// The file sink's `mode`: node_exporter's textfile collector runs as another user, and the
/// unit's `UMask=0027` leaves a new file `0640`, unreadable to it. With `mode` the file has the
/// bits asked for whatever the umask; without it, the umask decides as before.
@Suite(.onItsOwnThread) struct FileSinkModeTests {
    @Test func theFileHasItsModeWhateverTheUmask() throws {
        let dir = try Unprivileged.makeTemporaryDirectory("pathwatch-file-mode")
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let config = try writeConfig(
            """
            {"agent": {"plugin_dirs": ["\(TestEnvironment.productsDirectory.path)"], "interval": "1s", "state_dir": "state"},
             "probes": [{"id": "load", "plugin": "loadavg", "config": {}}],
             "sinks": [{"type": "file", "path": "asked.prom", "format": "prometheus", "mode": "0644"},
                       {"type": "file", "path": "default.prom", "format": "prometheus"}]}
            """, in: dir)
        try Unprivileged.own(dir)
        // As the unit runs it: its own user, UMask=0027.
        let agent = try BackgroundProcess(
            Unprivileged.command([
                "sh", "-c", "umask 0027 && exec \"$0\" \"$@\"", TestEnvironment.pathwatchBinary.path, "run", "--config",
                config.path,
            ]))
        defer { _ = agent.stop() }
        func mode(_ name: String) -> Int? {
            guard
                let attributes = try? FileManager.default.attributesOfItem(
                    atPath: dir.appendingPathComponent(name).path)
            else { return nil }
            return (attributes[.posixPermissions] as? NSNumber)?.intValue
        }
        let written = waitUntil(timeout: 30) { mode("asked.prom") != nil && mode("default.prom") != nil }
        #expect(written, "\(agent.errorOutput)")
        #expect(mode("asked.prom") == 0o644, "asked.prom is \(String(mode("asked.prom") ?? -1, radix: 8))")
        #expect(mode("default.prom") == 0o640, "default.prom is \(String(mode("default.prom") ?? -1, radix: 8))")
    }

    @Test(arguments: ["0666", "4644", "rw-r--r--", "644x", "0o644", ""])
    func aModeOthersCouldWriteOrThatIsNoModeIsRefused(mode: String) throws {
        let error = SinkConfigFixture.refusal(#"{"type": "file", "path": "/tmp/x.prom", "mode": "\#(mode)"}"#)
        #expect(
            error?.description.contains("sinks[1].mode: expected permission bits in octal") == true,
            "\(String(describing: error))")
    }
}
