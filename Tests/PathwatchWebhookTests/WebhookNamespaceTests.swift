import Foundation
import PathwatchTestSupport
import Testing

/// The webhook sink with real link events and a real path, in two network namespaces: the agent
/// runs in `host` with the linkstate probe; `upstream` holds the receiver on 10.81.0.2, reached
/// over veth `up0` (10.81.0.1/24, default route via 10.81.0.2). A second veth, `flap0`, whose
/// peer the test takes down and up, gives the carrier changes that become change events.
@Suite(.serialized, .onItsOwnThread) struct WebhookNamespaceTests {
    final class Topology {
        let host: LinkStateNamespace
        let upstream: LinkStateNamespace

        init() throws {
            host = try LinkStateNamespace("wh")
            do {
                upstream = try LinkStateNamespace("whu")
            } catch {
                host.delete()
                throw error
            }
            do {
                try host.exec(
                    """
                    ip link add up0 type veth peer name up1 netns \(upstream.name)
                    ip link add flap0 type veth peer name flap1 netns \(upstream.name)
                    """)
                try upstream.exec("ip link set up1 up; ip link set flap1 up; ip addr add 10.81.0.2/24 dev up1")
                try host.exec(
                    """
                    ip link set up0 up; ip link set flap0 up
                    ip addr add 10.81.0.1/24 dev up0
                    ip route add default via 10.81.0.2 dev up0
                    """)
            } catch {
                delete()
                throw error
            }
        }

        /// Carrier off or on for `flap0`, by taking its peer down or up.
        func flap(carrier: Bool) throws { try upstream.ip("link set flap1 \(carrier ? "up" : "down")") }

        func delete() {
            host.delete()
            upstream.delete()
        }
    }

    func config(in dir: URL, webhooks: [String]) throws -> URL {
        try writeConfig(
            """
            {"agent": {"name": "ns-test", "interval": "5s", "plugin_dirs": ["\(TestEnvironment.productsDirectory.path)"],
                       "state_dir": "\(dir.path)/queues"},
             "probes": [{"id": "link", "plugin": "linkstate"}],
             "sinks": [{"type": "stdout", "format": "json", "on": "change"},
                       {"type": "file", "path": "status.json", "pretty": false},
                       \(webhooks.joined(separator: ",\n"))]}
            """, in: dir)
    }

    func webhook(_ url: String) -> String {
        #"{"type": "webhook", "url": "\#(url)", "retry": {"initial": "100ms", "max": "500ms"}}"#
    }

    /// Takes flap0's carrier away and back `times` times, waiting for each change event.
    func flap(_ topology: Topology, times: Int, agent: BackgroundProcess) throws {
        // Counted by text, not parsed: this runs hundreds of times a second.
        func flaps() -> Int { agent.outputLines.filter { $0.contains(#""check":"link/flap0""#) }.count }
        for i in 0..<times {
            let before = flaps()
            try topology.flap(carrier: i % 2 == 1)
            let seen = waitUntil(timeout: 10) { flaps() > before }
            try #require(seen, "no event for flap \(i); \(agent.errorOutput)")
        }
    }

    func entry(_ statusFile: URL, target: String) -> [String: Any]? {
        guard let text = try? String(contentsOf: statusFile, encoding: .utf8), let doc = try? parseJSONObject(text)
        else { return nil }
        return (doc["sinks"] as? [[String: Any]])?.first { $0["target"] as? String == target }
    }

    @Test(.enabled(if: TestEnvironment.canUseNamespaces, Comment(rawValue: TestEnvironment.needsRootReason)))
    func twoHundredLinkEventsWaitForTheReceiverAndArriveInOrderOnce() throws {
        let topology = try Topology()
        defer { topology.delete() }
        let dir = try TestEnvironment.makeTemporaryDirectory()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let receiver = try WebhookReceiver(
            log: dir.appendingPathComponent("received.jsonl"), host: "10.81.0.2", port: 8080,
            netns: topology.upstream.name, start: false)
        defer { receiver.stop() }
        let config = try config(in: dir, webhooks: [webhook(receiver.url)])
        let agent = try BackgroundProcess([
            "ip", "netns", "exec", topology.host.name, TestEnvironment.pathwatchBinary.path, "run", "--config",
            config.path,
        ])
        defer { agent.stop() }
        #expect(waitUntil { FileManager.default.fileExists(atPath: dir.appendingPathComponent("status.json").path) })

        try flap(topology, times: 200, agent: agent)
        let printed = changeEvents(agent.outputLines)
        #expect(printed.filter { $0["check"] as? String == "link/flap0" }.count == 200)
        let ids = printed.compactMap { $0["id"] as? String }
        #expect(receiver.records().isEmpty)

        try receiver.start()
        #expect(
            waitUntil(timeout: 60) { receiver.accepted().count >= ids.count },
            "\(receiver.accepted().count) of \(ids.count)")
        let received = receiver.acceptedBodies().compactMap { $0["id"] as? String }
        #expect(sequenceProblem(got: received, expected: ids) == nil, "all arrive, in order, none twice")
        let bodies = receiver.acceptedBodies()
        #expect(
            bodies.filter { $0["check"] as? String == "link/flap0" }.map { $0["to"] as? String }
                == (0..<200).map { $0 % 2 == 0 ? "critical" : "ok" })
    }

    @Test(.enabled(if: TestEnvironment.canUseNamespaces, Comment(rawValue: TestEnvironment.needsRootReason)))
    func deliveriesHoldWhileThePathIsUnsatisfiedExceptToLoopback() throws {
        let topology = try Topology()
        defer { topology.delete() }
        let dir = try TestEnvironment.makeTemporaryDirectory()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        // Upstream stays reachable over the connected route even without a default route, so
        // anything it receives while the path is unsatisfied would be a delivery that was not held.
        let remote = try WebhookReceiver(
            log: dir.appendingPathComponent("remote.jsonl"), host: "10.81.0.2", port: 8080,
            netns: topology.upstream.name)
        defer { remote.stop() }
        let local = try WebhookReceiver(
            log: dir.appendingPathComponent("local.jsonl"), host: "127.0.0.1", port: 8081, netns: topology.host.name)
        defer { local.stop() }
        let config = try config(in: dir, webhooks: [webhook(remote.url), webhook(local.url)])
        let agent = try BackgroundProcess([
            "ip", "netns", "exec", topology.host.name, TestEnvironment.pathwatchBinary.path, "run", "--config",
            config.path,
        ])
        defer { agent.stop() }
        let statusFile = dir.appendingPathComponent("status.json")
        #expect(waitUntil { entry(statusFile, target: remote.url) != nil })

        try topology.host.ip("route del default")
        #expect(
            agent.waitForLine(timeout: 10) { $0.contains(#""check":"link/path""#) && $0.contains(#""to":"critical""#) }
                != nil)
        try flap(topology, times: 10, agent: agent)
        let offline = changeEvents(agent.outputLines).compactMap { $0["id"] as? String }
        #expect(offline.count == 11, "the path event and ten flaps")
        // The loopback receiver gets them all while offline...
        #expect(waitUntil(timeout: 20) { local.accepted().count >= offline.count })
        #expect(
            sequenceProblem(got: local.acceptedBodies().compactMap { $0["id"] as? String }, expected: offline) == nil)
        // ...while the other sink holds every one of them, without trying.
        #expect(
            remote.records().isEmpty,
            "\(remote.records().count) requests reached upstream while the path was unsatisfied")
        #expect(waitUntil { (entry(statusFile, target: remote.url)?["queued"] as? Int) == offline.count })
        #expect(agent.errorOutput.contains("holding deliveries"))

        try topology.host.ip("route add default via 10.81.0.2 dev up0")
        #expect(
            agent.waitForLine(timeout: 10) { $0.contains(#""check":"link/path""#) && $0.contains(#""to":"ok""#) } != nil
        )
        let all = changeEvents(agent.outputLines).compactMap { $0["id"] as? String }
        #expect(waitUntil(timeout: 20) { remote.accepted().count >= all.count })
        #expect(
            sequenceProblem(got: remote.acceptedBodies().compactMap { $0["id"] as? String }, expected: all) == nil,
            "flushed oldest first")
        #expect(remote.records().count == all.count, "no attempt was burned while held")
    }
}
