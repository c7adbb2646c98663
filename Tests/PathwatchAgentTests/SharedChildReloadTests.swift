import Foundation
import PathwatchTestSupport
import Testing

/// A shared plug-in child across a reload, and event-driven instances in one child.
@Suite(.serialized, .onItsOwnThread) struct SharedChildReloadTests {
    typealias Shared = SharedChildTests

    /// A reload that keeps one probe of a file, removes another and adds a third changes only
    /// those instances: the child goes on, and the kept probe's instance with it (its sample
    /// count goes on, it is not restarted).
    @Test func aReloadAddsAndRemovesInstancesWithoutRestartingTheKeptOnes() throws {
        let dir = try Shared.folder()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        func probe(_ id: String) -> String {
            #"{"id": "\#(id)", "plugin": "testprobe", "interval": "100ms", "config": {"counter": true}}"#
        }
        let agent = try Shared.start([probe("kept"), probe("gone")], in: dir)
        defer { agent.stop(grace: 1) }
        let first = try #require(
            Shared.waitForAll(agent, ["kept/c0", "gone/c0"]), "\(agent.errorOutput.suffix(2_000))")
        let pid = try #require(Shared.probe(first, "kept")?["pid"] as? Double)
        _ = try writeConfig(
            """
            {"agent": {"plugin_dirs": ["\(dir.path)"], "state_dir": "\(dir.path)/state", "isolation": "process"},
             "probes": [\(probe("kept")), \(probe("new"))],
             "sinks": [{"type": "stdout", "format": "json", "on": "every"}]}
            """, in: dir)
        let countBefore = Shared.documents(agent).count
        agent.signal(SIGHUP)
        let after = waitUntilValue(timeout: 30, interval: 0.05) {
            Shared.documents(agent).dropFirst(countBefore).last { doc in
                Shared.check(doc, "new/c0") != nil && Shared.check(doc, "gone/c0") == nil
                    && Shared.probe(doc, "gone") == nil
            }
        }
        let doc = try #require(after, "\(agent.errorOutput.suffix(2_000))")
        #expect(
            agent.errorOutput.contains("1 probes (re)started, 1 stopped, 1 kept"), "\(agent.errorOutput.suffix(1_000))")
        #expect(Shared.probe(doc, "kept")?["pid"] as? Double == pid, "the child was replaced")
        #expect(Shared.probe(doc, "new")?["pid"] as? Double == pid, "the new probe joined the running child")
        #expect(Shared.probe(doc, "kept")?["restarts"] as? Double == 0)
        // The kept instance is the same one: its own count of samples went on.
        let keptSamples = Shared.documents(agent).compactMap {
            (Shared.check($0, "kept/c0")?["metrics"] as? [String: Any])?["samples"] as? Double
        }
        #expect(
            keptSamples == keptSamples.sorted() && keptSamples.first == 1,
            "the kept probe's count started again: \(keptSamples.prefix(50))")
        #expect(Shared.pluginChildren(of: agent.processIdentifier) == [Int32(pid)])
    }

    /// Two event-driven probes (linkstate) of one file in one child: each instance's netlink
    /// descriptor is its own, watched on its own thread in the child, and both report a carrier
    /// change as it happens (their interval is an hour).
    @Test(.enabled(if: TestEnvironment.canUseNamespaces, Comment(rawValue: TestEnvironment.needsRootReason)))
    func eventDrivenInstancesInOneChildEachGetTheirEvents() throws {
        let host = try LinkStateNamespace("sc")
        defer { host.delete() }
        try host.exec("ip link add flap0 type veth peer name flap1; ip link set flap1 up; ip link set flap0 up")
        let dir = try TestEnvironment.makeTemporaryDirectory()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let config = try writeConfig(
            """
            {"agent": {"plugin_dirs": ["\(TestEnvironment.productsDirectory.path)"], "interval": "1h", "isolation": "process"},
             "probes": [{"id": "one", "plugin": "linkstate"}, {"id": "two", "plugin": "linkstate"}],
             "sinks": [{"type": "stdout", "format": "json", "on": "every"}]}
            """, in: dir)
        let agent = try BackgroundProcess([
            "ip", "netns", "exec", host.name, TestEnvironment.pathwatchBinary.path, "run", "--config", config.path,
        ])
        defer { agent.stop() }
        func both(_ state: String) -> Bool {
            Shared.documents(agent).contains { doc in
                ["one", "two"].allSatisfy { Shared.check(doc, "\($0)/flap0")?["state"] as? String == state }
            }
        }
        #expect(waitUntil(timeout: 30, interval: 0.05) { both("ok") }, "\(agent.errorOutput.suffix(1_000))")
        let children = Shared.pluginChildren(of: agent.processIdentifier)
        #expect(children.count == 1, "one child for both linkstate probes, found \(children.count)")
        try host.ip("link set flap1 down")
        #expect(waitUntil(timeout: 10, interval: 0.05) { both("critical") }, "\(agent.errorOutput.suffix(1_000))")
    }
}
