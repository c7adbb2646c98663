import Foundation
import PathwatchBase
import PathwatchTestSupport
import Testing

/// A plug-in child starts with glibc's per-thread cache limited (HeapSettings.childTunable),
/// ahead of the operator's own GLIBC_TUNABLES, and its plug-in sees the environment as the
/// agent had it: what a plug-in starts is not handed the agent's setting.
@Suite(.serialized, .onItsOwnThread) struct ChildTunablesTests {
    @Test(arguments: [nil, "glibc.malloc.arena_max=3"])
    func theChildStartsWithTheLimitAndItsPluginSeesTheOperatorsValue(given: String?) throws {
        let dir = try FixturePlugins.folderWithTestProbe()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let config = try writeConfig(
            """
            {"agent": {"plugin_dirs": ["\(dir.path)"], "state_dir": "\(dir.path)/state", "isolation": "process"},
             "probes": [{"id": "p", "plugin": "testprobe", "interval": "100ms",
                         "config": {"checks": 1, "echo_env": "GLIBC_TUNABLES"}}],
             "sinks": [{"type": "stdout", "format": "json", "on": "every"}]}
            """, in: dir)
        try Unprivileged.own(dir)
        let environment = ["/usr/bin/env", "-u", "GLIBC_TUNABLES"] + (given.map { ["GLIBC_TUNABLES=\($0)"] } ?? [])
        let agent = try BackgroundProcess(
            Unprivileged.command(
                environment + [TestEnvironment.pathwatchBinary.path, "run", "--config", config.path]))
        defer { agent.stop(grace: 1) }
        let doc = try #require(
            SharedChildTests.waitForAll(agent, ["p/c0"]), "\(agent.errorOutput.suffix(2_000))")
        #expect(SharedChildTests.check(doc, "p/c0")?["message"] as? String == given ?? "(unset)")

        let child = try #require(SharedChildTests.pluginChildren(of: agent.processIdentifier).first)
        let started = try #require(FileManager.default.contents(atPath: "/proc/\(child)/environ"))
        let entries = started.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
        // glibc (2.36) ends each tunable's value in place as it reads them at the child's start,
        // so the environment it was started with shows the first pair: the agent's. That the
        // operator's came after it, the plug-in's message says.
        let tunables = entries.filter { $0.hasPrefix("GLIBC_TUNABLES=") }
        #expect(tunables.count == 1, "\(tunables)")
        #expect(tunables.allSatisfy { $0.hasPrefix("GLIBC_TUNABLES=" + HeapSettings.childTunable) }, "\(tunables)")
    }
}
