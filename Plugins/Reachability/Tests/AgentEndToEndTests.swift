import Foundation
import PathwatchTestSupport
import Testing

/// The built plug-in loaded by the real agent (`pathwatch once`, `pathwatch check-config`), so
/// secret substitution, JSON paths and exit codes are the agent's own.
@Suite(.onItsOwnThread) struct AgentEndToEndTests {
    /// A private plug-in folder (mode 0755) holding only the reachability plug-in, and a config.
    final class Setup {
        let directory: URL
        init() throws {
            directory = try TestEnvironment.makeTemporaryDirectory("pathwatch-reach-e2e")
            chmod(directory.path, 0o755)
            try FileManager.default.copyItem(
                at: TestEnvironment.plugin("pathwatch_reachability"),
                to: directory.appendingPathComponent("libpathwatch_reachability.so"))
        }

        /// Writes a config with one reachability probe "api" whose `config` is `probeConfig`.
        func config(_ probeConfig: String) throws -> String {
            try writeConfig(
                #"{"agent": {"plugin_dirs": ["\#(directory.path)"]}, "probes": [{"id": "api", "plugin": "reachability", "config": \#(probeConfig)}]}"#,
                in: directory
            ).path
        }

        deinit { TestEnvironment.removeTemporaryDirectory(directory) }
    }

    /// The agent as an ordinary user, as operators run it.
    func pathwatch(_ arguments: [String], environment: [String: String]? = nil) throws -> ProcessResult {
        try run(Unprivileged.pathwatch(arguments), environment: environment)
    }

    func check(_ document: [String: Any], _ id: String) throws -> [String: Any] {
        let checks = document["checks"] as? [[String: Any]] ?? []
        guard let found = checks.first(where: { $0["id"] as? String == id }) else {
            throw TestFailure("no check \(id) in \(checks.map { $0["id"] ?? "?" })")
        }
        return found
    }

    @Test func bearerTokenFromEnvironmentIsSentAndNeverPrinted() throws {
        let token = "tok-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let server = try EndpointServer(environment: ["BEARER_TOKEN": token])
        let setup = try Setup()
        let config = try setup.config(
            #"{"targets": [{"name": "orion", "url": "\#(server.url("/bearer"))", "headers": {"Authorization": "Bearer ${env:PW_TEST_BEARER}"}}]}"#
        )
        let environment = ["PW_TEST_BEARER": token]
        let json = try pathwatch(["once", "--config", config, "--log-level", "trace"], environment: environment)
        #expect(json.status == 0, "\(json.stdout)\n\(json.stderr)")
        let orion = try check(try parseJSONObject(json.stdout), "api/orion")
        #expect(orion["state"] as? String == "ok")
        #expect((orion["message"] as? String)?.hasPrefix("HTTP 200 in ") == true)
        let text = try pathwatch(["once", "--config", config, "--format", "text"], environment: environment)
        let checked = try pathwatch(["check-config", "--config", config], environment: environment)
        #expect(checked.status == 0)
        for output in [json, text, checked] {
            #expect(!output.stdout.contains(token))
            #expect(!output.stderr.contains(token))
        }
    }

    @Test func badTargetIsRefusedWithItsPathByCheckConfig() throws {
        let setup = try Setup()
        let secret = "pw-\(getpid())"
        let config = try setup.config(
            #"{"targets": [{"name": "a", "url": "gopher://u:${env:PW_TEST_SECRET}@127.0.0.1/"}]}"#)
        let result = try pathwatch(["check-config", "--config", config], environment: ["PW_TEST_SECRET": secret])
        #expect(result.status == 78)
        #expect(result.stderr.contains("probes[0].config.targets[0].url"), "\(result.stderr)")
        #expect(result.stderr.contains("unsupported scheme \"gopher\""))
        #expect(!result.stderr.contains(secret) && !result.stdout.contains(secret))
    }

    @Test func unknownMethodIsRefusedByOnce() throws {
        let setup = try Setup()
        let config = try setup.config(
            #"{"targets": [{"name": "a", "url": "http://127.0.0.1:9/", "method": "DELETE"}]}"#)
        let result = try pathwatch(["once", "--config", config])
        #expect(result.status == 78)
        #expect(result.stderr.contains("probes[0].config.targets[0].method"), "\(result.stderr)")
    }

    @Test func insecureTLSIsAnnouncedAtLoad() throws {
        let setup = try Setup()
        let config = try setup.config(
            #"{"targets": [{"name": "lab", "url": "https://127.0.0.1:9/", "tls": {"insecure": true}}]}"#)
        // Isolated (the default), what the plug-in writes to stderr is its child's, logged by the
        // agent at debug level with the probe's id.
        let result = try pathwatch(["check-config", "--config", config, "--log-level", "debug"])
        #expect(result.status == 0)
        #expect(
            result.stderr.contains("plug-in output: reachability: targets[0] (lab): tls.insecure is set"),
            "\(result.stderr)")
    }

    /// A host name that cannot resolve, inside a network namespace with no route (loopback down)
    /// and a private resolv.conf bind-mounted over /etc/resolv.conf: no real resolver is asked.
    @Test(.enabled(if: TestEnvironment.canUseNamespaces, Comment(rawValue: TestEnvironment.needsRootReason)))
    func unresolvableHostIsADNSFailure() throws {
        let setup = try Setup()
        let resolv = setup.directory.appendingPathComponent("resolv.conf")
        try "nameserver 127.0.0.1\noptions timeout:1 attempts:1\n".write(to: resolv, atomically: true, encoding: .utf8)
        let config = try setup.config(
            #"{"targets": [{"name": "gone", "url": "http://pathwatch-test.invalid/health"}]}"#)
        // unshare -m makes the mount private to this namespace; it vanishes with the process.
        let result = try run(
            [
                "unshare", "--net", "--mount", "--propagation", "private", "bash", "-euc",
                #"mount --bind "$1" /etc/resolv.conf && exec "$2" once --config "$3""#, "dns-test",
                resolv.path, TestEnvironment.pathwatchBinary.path, config,
            ],
            timeout: 60)
        #expect(result.status == 2, "\(result.stdout)\n\(result.stderr)")
        let gone = try check(try parseJSONObject(result.stdout), "api/gone")
        #expect(gone["state"] as? String == "critical")
        #expect(gone["message"] as? String == "DNS: cannot resolve pathwatch-test.invalid")
        #expect((gone["metrics"] as? [String: Any])?["dns_ms"] == nil)
    }
}
