import Foundation
import PathwatchProbeKit
import PathwatchTestSupport
import Testing

/// A probe `timeout` shorter than the plug-in's own default wait (5 s) must shorten the wait, not
/// break the probe: the check URL that does not answer is "limited" within the probe's deadline,
/// and the host never kills the plug-in for it.
@Suite(.serialized, .onItsOwnThread) struct ConnectivityDeadlineTests {
    /// The probe itself, told a deadline well before its 5 s default: it reports limited,
    /// saying it ran out of time.
    @Test func theProbeCutsItsWaitToTheDeadline() throws {
        let directory = try TestEnvironment.makeTemporaryDirectory("pathwatch-conn-deadline")
        defer { TestEnvironment.removeTemporaryDirectory(directory) }
        let server = try PortalServer(in: directory)
        defer { server.stop() }
        server.mode = .hang
        let seen = try ProbeDriver.sampleOnce(
            #"{"url": "\#(server.url("/generate_204"))"}"#, by: .after(.milliseconds(700)))
        #expect(seen.state == .critical)
        #expect(seen.labels[WellKnownLabel.internet] == "limited")
        #expect(seen.message.hasPrefix("no internet access: timed out after "), "\(seen.message)")
        #expect(
            seen.message.hasSuffix("(waiting for response): ran out of time before the probe's deadline"),
            "\(seen.message)")
        // Without a deadline (an older agent) the configured timeout stands, and is named.
        let own = try ProbeDriver.sampleOnce(#"{"url": "\#(server.url("/generate_204"))", "timeout": "300ms"}"#)
        #expect(own.message == "no internet access: timed out after 300 ms (waiting for response)", "\(own.message)")
    }

    /// `pathwatch once` (as an ordinary user) with the probe's `timeout` at
    /// 1500ms and no `timeout` in its config, against a check URL on loopback that accepts and
    /// never answers, in both isolations.
    @Test(arguments: ["process", "inline"])
    func aShortProbeTimeoutIsLimitedInBothIsolations(isolation: String) throws {
        let directory = try TestEnvironment.makeTemporaryDirectory("pathwatch-conn-deadline")
        defer { TestEnvironment.removeTemporaryDirectory(directory) }
        chmod(directory.path, 0o755)
        let server = try PortalServer(in: directory)
        defer { server.stop() }
        server.mode = .hang
        let config = try writeConfig(
            """
            {"agent": {"name": "deadline-test", "plugin_dirs": ["\(TestEnvironment.productsDirectory.path)"], "state_dir": "\(directory.path)/state"},
             "probes": [{"id": "net", "plugin": "connectivity", "interval": "10s", "timeout": "1500ms", "isolation": "\(isolation)",
                         "config": {"url": "\(server.url("/generate_204"))"}}],
             "sinks": []}
            """, in: directory)
        chmod(config.path, 0o644)
        let result = try run(
            Unprivileged.pathwatch(["once", "--config", config.path, "--format", "json"]), timeout: 30)
        let document = try parseJSONObject(result.stdout)
        let check = (document["checks"] as? [[String: Any]])?.first { $0["id"] as? String == "net/internet" }
        let message = check?["message"] as? String ?? ""
        #expect(
            check?["state"] as? String == "critical", "\(String(describing: check)); \(result.stderr.suffix(1_000))")
        #expect(message.hasSuffix("ran out of time before the probe's deadline"), "\(message)")
        #expect((document["path"] as? [String: Any])?["internet"] as? String == "limited")
        #expect(!result.stderr.contains("overran"), "\(result.stderr.suffix(1_000))")
        let probe = (document["probes"] as? [[String: Any]])?.first { $0["id"] as? String == "net" }
        #expect(
            probe?["restarts"] as? Double ?? 0 == 0 && probe?["last_error"] as? String == nil,
            "\(String(describing: probe))")
    }

    /// The issue's case: the agent runs as an ordinary user in a namespace whose uplink
    /// leads to an ISP namespace that has stopped answering — carrier and route kept, the
    /// gateway's address gone, so nothing on the link answers. The probe's `timeout` is 1500ms
    /// and its config keeps the default 5 s wait. The first sample says `limited`, and the
    /// probe is never killed or restarted for it.
    @Test(.enabled(if: TestEnvironment.canUseNamespaces, Comment(rawValue: TestEnvironment.needsRootReason)))
    func aGatewayThatStoppedAnsweringIsLimitedAtTheFirstSample() throws {
        let topology = try ISPTopology()
        defer { topology.delete() }
        try topology.ispAnswers(false)
        let directory = try TestEnvironment.makeTemporaryDirectory("pathwatch-conn-deadline")
        defer { TestEnvironment.removeTemporaryDirectory(directory) }
        chmod(directory.path, 0o755)
        let config = try writeConfig(
            """
            {"agent": {"name": "deadline-test", "plugin_dirs": ["\(TestEnvironment.productsDirectory.path)"], "state_dir": "\(directory.path)/state"},
             "probes": [{"id": "net", "plugin": "connectivity", "interval": "2s", "timeout": "1500ms",
                         "config": {"url": "http://\(ISPTopology.ispAddress):\(ISPTopology.port)/generate_204"}}],
             "sinks": [{"type": "stdout", "format": "json", "on": "every"}]}
            """, in: directory)
        chmod(config.path, 0o644)
        let agent = try BackgroundProcess(
            ["ip", "netns", "exec", topology.host.name] + Unprivileged.pathwatch(["run", "--config", config.path]))
        defer { agent.stop() }

        func documentWithTheCheck(from: Int) -> (index: Int, document: [String: Any])? {
            let found = agent.waitForLine(from: from, timeout: 30) { line in
                guard let document = try? parseJSONObject(line) else { return false }
                return (document["checks"] as? [[String: Any]])?.contains { $0["id"] as? String == "net/internet" }
                    == true
            }
            return found.flatMap { found in (try? parseJSONObject(found.line)).map { (found.index, $0) } }
        }
        let first = try #require(
            documentWithTheCheck(from: 0), "no sample reported: \(agent.errorOutput.suffix(2_000))")
        let check = (first.document["checks"] as? [[String: Any]])?.first { $0["id"] as? String == "net/internet" }
        #expect(check?["state"] as? String == "critical", "\(String(describing: check))")
        #expect(
            (check?["message"] as? String)?.hasPrefix("no internet access: ") == true, "\(String(describing: check))")
        #expect(
            (first.document["path"] as? [String: Any])?["internet"] as? String == "limited",
            "\(String(describing: first.document["path"]))")
        // The next sample too, and by then no kill or restart has happened.
        let second = try #require(documentWithTheCheck(from: first.index + 1), "\(agent.errorOutput.suffix(2_000))")
        let probe = (second.document["probes"] as? [[String: Any]])?.first { $0["id"] as? String == "net" }
        #expect(
            probe?["restarts"] as? Double == 0 && probe?["last_error"] as? String == nil, "\(String(describing: probe))"
        )
        #expect((second.document["path"] as? [String: Any])?["internet"] as? String == "limited")
        #expect(
            !agent.errorOutput.contains("overran") && !agent.errorOutput.contains("timed out after 1500ms"),
            "\(agent.errorOutput.suffix(2_000))")
    }
}
