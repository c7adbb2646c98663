import Foundation
import PathwatchTestSupport
import Testing

/// The agent with the linkstate, connectivity and reachability probes in a namespace whose uplink
/// leads to an "ISP" namespace: full internet, then a captive portal (a redirect, then a login
/// page in place), then an ISP that stops answering while carrier and route stay, then full
/// again. `path.internet`, `status` and the description must follow each within the probe's
/// interval plus the check's timeout; the internet check raises one change event per transition;
/// the endpoint behind the same uplink stays silent throughout.
@Suite(.serialized, .onItsOwnThread) struct ConnectivityNamespaceTests {
    static let interval = 1.0
    static let checkTimeout = 0.8
    /// Interval plus timeout, with room for a busy machine (the tests share two cores).
    static let deadline = interval + checkTimeout + 4

    func config(in directory: URL) throws -> URL {
        let isp = "http://\(ISPTopology.ispAddress):\(ISPTopology.port)"
        return try writeConfig(
            """
            {"agent": {"name": "conn-test", "interval": "5s", "plugin_dirs": ["\(TestEnvironment.productsDirectory.path)"],
                       "state_dir": "\(directory.path)/state"},
             "probes": [
               {"id": "link", "plugin": "linkstate"},
               {"id": "net", "plugin": "connectivity", "interval": "1s",
                "config": {"url": "\(isp)/generate_204", "timeout": "800ms"}},
               {"id": "api", "plugin": "reachability", "interval": "3s", "fail_after": 2,
                "config": {"targets": [{"name": "isp-api", "url": "\(isp)/api", "timeout": "800ms"}]}}],
             "sinks": [{"type": "stdout", "format": "json", "on": "change"},
                       {"type": "file", "path": "status.json", "pretty": false}]}
            """, in: directory)
    }

    @Test(.enabled(if: TestEnvironment.canUseNamespaces, Comment(rawValue: TestEnvironment.needsRootReason)))
    func fullPortalLimitedAndFullAgain() throws {
        let topology = try ISPTopology()
        defer { topology.delete() }
        let directory = try TestEnvironment.makeTemporaryDirectory("pathwatch-conn-ns")
        defer { TestEnvironment.removeTemporaryDirectory(directory) }
        let server = try topology.startServer(in: directory)
        defer { server.stop() }
        let agent = try NamespacedAgent(config: config(in: directory), namespace: topology.host, directory: directory)
        defer { agent.stop() }
        var took: [String: Double] = [:]

        func expectPath(_ internet: String, _ status: String, _ description: String, _ step: String) throws {
            let seconds = agent.waitFor(timeout: Self.deadline) {
                let path = agent.path
                return path["internet"] as? String == internet && path["status"] as? String == status
                    && path["description"] as? String == description
            }
            try #require(seconds != nil, "\(step): path is \(agent.path); \(agent.process.errorOutput.suffix(2000))")
            took[step] = seconds
        }

        try expectPath("full", "satisfied", "Connected via Ethernet (isp0)", "start")
        #expect(agent.waitFor(timeout: 10) { agent.check("api/isp-api")?["state"] as? String == "ok" } != nil)

        server.mode = .redirect
        try expectPath("portal", "unsatisfied", "Connected via Ethernet (isp0), sign-in required", "portal (302)")
        #expect(
            (agent.check("net/internet")?["message"] as? String)?.contains("redirect to http://login.portal.invalid")
                == true)

        server.mode = .html
        let inPlace = agent.waitFor(timeout: Self.deadline) {
            (agent.check("net/internet")?["message"] as? String)?.hasPrefix("sign-in required: HTTP 200 (expected 204)")
                == true
        }
        #expect(inPlace != nil, "\(String(describing: agent.check("net/internet")))")
        #expect(agent.path["internet"] as? String == "portal")

        // The ISP goes silent first: the server's answer matters again only once it answers, and
        // a sample between the two steps would otherwise see full internet for a moment.
        try topology.ispAnswers(false)
        server.mode = .full
        try expectPath("limited", "unsatisfied", "Connected via Ethernet (isp0), no internet access", "limited")
        // Carrier and route stayed: only what lies behind the link is gone.
        #expect(agent.check("link/isp0")?["state"] as? String == "ok")
        #expect(try topology.host.ip("route show default").contains("via \(ISPTopology.ispAddress) dev isp0"))
        // After the check's 800 ms, or sooner when a busy machine left less of the probe's
        // deadline for the sample, which the message then says.
        let limitedMessage = agent.check("net/internet")?["message"] as? String ?? ""
        #expect(
            limitedMessage.hasPrefix("no internet access: timed out after 800 ms")
                || (limitedMessage.hasPrefix("no internet access: timed out after ")
                    && limitedMessage.hasSuffix("ran out of time before the probe's deadline")),
            "\(String(describing: agent.check("net/internet")))")
        // The endpoint fails too, and says why instead of alerting on its own.
        let silenced = agent.waitFor(timeout: 15) {
            let check = agent.check("api/isp-api")
            return check?["state"] as? String == "critical"
                && (check?["message"] as? String)?.hasSuffix("(no internet access)") == true
        }
        #expect(silenced != nil, "\(String(describing: agent.check("api/isp-api")))")

        try topology.ispAnswers(true)
        try expectPath("full", "satisfied", "Connected via Ethernet (isp0)", "full again")
        #expect(agent.waitFor(timeout: 5) { agent.check("api/isp-api")?["state"] as? String == "ok" } != nil)
        usleep(1_500_000)  // time for any stray event to show: an absence, seen only over real time

        let changes = agent.changes()
        let internet = changes.filter { $0["check"] as? String == "net/internet" }
        #expect(
            internet.map { "\($0["from"] as? String ?? "?")→\($0["to"] as? String ?? "?")" }
                == ["ok→warning", "warning→critical", "critical→ok"], "\(internet)")
        #expect(
            internet.map { ($0["path"] as? [String: Any])?["description"] as? String } == [
                "Connected via Ethernet (isp0), sign-in required", "Connected via Ethernet (isp0), no internet access",
                "Connected via Ethernet (isp0)",
            ])
        #expect(
            changes.filter { $0["check"] as? String != "net/internet" }.isEmpty,
            "only the internet check spoke: \(changes)")
        print("connectivity transitions, seconds to the right path: \(took.sorted { $0.key < $1.key })")
        for (step, seconds) in took where step != "start" {
            #expect(seconds <= Self.interval + Self.checkTimeout + 1, "\(step) took \(seconds) s")
        }
    }
}
