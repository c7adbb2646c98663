import Foundation
import PathwatchTestSupport
import Testing

/// `check-config` as root checks as the service's user too: a `${file:}` secret only root can
/// read, or a file sink's folder only root can write, passes root's check and fails the
/// service's reload, so the command refuses it and names the user it checked as. The service's
/// user here is `nobody` (`$PATHWATCH_SERVICE_USER`), as the shipped unit's is `pathwatch`.
@Suite(.onItsOwnThread) struct CheckConfigAsServiceUserTests {
    static let environment = ["PATHWATCH_SERVICE_USER": "nobody"]

    func check(_ sinks: String, in dir: URL) throws -> ProcessResult {
        let config = try writeConfig(
            """
            {"agent": {"plugin_dirs": ["\(TestEnvironment.productsDirectory.path)"], "state_dir": "state"},
             "probes": [{"id": "load", "plugin": "loadavg", "config": {}}],
             "sinks": [\(sinks)]}
            """, in: dir)
        chmod(config.path, 0o644)
        return try run(
            [TestEnvironment.pathwatchBinary.path, "check-config", "--config", config.path],
            environment: Self.environment, timeout: 120)
    }

    @Test(
        .enabled(
            if: TestEnvironment.isRoot && Unprivileged.productsReachable,
            "needs root, and build products the user nobody can run"))
    func whatOnlyRootCanReadOrWriteIsRefusedNamingTheUser() throws {
        let dir = try Unprivileged.makeTemporaryDirectory("pathwatch-check-user")
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let secret = dir.appendingPathComponent("token")
        try "s3cret-value-0123456789".write(to: secret, atomically: false, encoding: .utf8)
        chown(secret.path, 0, 0)
        chmod(secret.path, 0o600)
        let rootOnly = dir.appendingPathComponent("root-only")
        try FileManager.default.createDirectory(at: rootOnly, withIntermediateDirectories: false)
        chown(rootOnly.path, 0, 0)
        chmod(rootOnly.path, 0o755)

        let good = try check(#"{"type": "file", "path": "status.json"}"#, in: dir)
        #expect(good.status == 0, "\(good.stdout)\(good.stderr)")
        #expect(good.stdout.contains("checked as root and as the service's user nobody"), "\(good.stdout)")

        let unreadable = try check(
            #"{"type": "http", "listen": "127.0.0.1:1", "token": "${file:\#(secret.path)}"}"#, in: dir)
        #expect(unreadable.status == 78, "\(unreadable.stdout)\(unreadable.stderr)")
        #expect(unreadable.stderr.contains("as the service's user nobody: "), "\(unreadable.stderr)")
        #expect(unreadable.stderr.contains(secret.path), "the refusal names the file: \(unreadable.stderr)")
        #expect(
            !unreadable.stderr.contains("s3cret-value-0123456789")
                && !unreadable.stdout.contains("s3cret-value-0123456789"))

        let unwritable = try check(#"{"type": "file", "path": "root-only/status.json"}"#, in: dir)
        #expect(unwritable.status == 78, "\(unwritable.stdout)\(unwritable.stderr)")
        #expect(unwritable.stderr.contains("as the service's user nobody: "), "\(unwritable.stderr)")
        #expect(unwritable.stderr.contains("root-only"), "\(unwritable.stderr)")
    }
}
