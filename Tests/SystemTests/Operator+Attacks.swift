import Foundation
import PathwatchTestSupport
import Testing

extension Operator {
    // MARK: 21. a hostile plug-in under the unit

    /// The isolation line of docs/isolation.md under the shipped unit (its user, no capabilities,
    /// its system-call filter with `seccomp` allowed): a hostile plug-in (the tests' fixture, built
    /// here and installed in the local plug-in folder) aims every attack of attacks.h at the
    /// agent, from its child and from a grandchild in a session of its own. Each is refused, the
    /// journal names what was refused, and the agent is the same process throughout. The
    /// fragment and the library are removed again, so the later steps see a quiet agent.
    func refusesAHostilePluginUnderTheUnit() throws {
        let build = try TestEnvironment.makeTemporaryDirectory()
        defer { TestEnvironment.removeTemporaryDirectory(build) }
        let library = try FixturePlugins.build("hostile_probe.c", as: "hostile", into: build)
        let installed = root.appendingPathComponent("usr/local/lib/pathwatch/plugins/libhostile.so")
        try FileManager.default.createDirectory(
            at: installed.deletingLastPathComponent(), withIntermediateDirectories: true)
        try? FileManager.default.removeItem(at: installed)
        try FileManager.default.copyItem(at: library, to: installed)
        chmod(installed.path, 0o644)
        let fragment = "etc/pathwatch/conf.d/60-hostile.json"
        // Gone again afterwards, the library too: the folder is the operator's, which purge
        // removes only when it is empty (step 12).
        defer {
            try? FileManager.default.removeItem(at: root.appendingPathComponent(fragment))
            _ = try? container.must("systemctl reload pathwatch")
            try? FileManager.default.removeItem(at: installed)
        }
        let attacks = IsolationAttacks.underTheUnit
        let probes = ["child", "grandchild"].flatMap { from in
            attacks.map {
                #"{"id": "\#(from)-\#($0)", "plugin": "hostile", "interval": "1s", "config": {"do": "attack", "attack": "\#($0)", "from": "\#(from)"}}"#
            }
        }
        try SystemTierTests.write(root, fragment, #"{"probes": [\#(probes.joined(separator: ",\n"))]}"# + "\n")
        let before = try mainPID()
        let cursor = try cursor()
        try container.must("systemctl reload pathwatch")
        let document = try waitForDocument("every attack made and answered") { document in
            ["child", "grandchild"].allSatisfy { from in
                attacks.allSatisfy { document.checks["\(from)-\($0)/c"]?["message"] != nil }
            }
        }
        for from in ["child", "grandchild"] {
            let prefix = from == "grandchild" ? "grandchild: " : ""
            for attack in attacks {
                let message = document.checks["\(from)-\(attack)/c"]?["message"] as? String ?? "none"
                #expect(
                    message.hasPrefix("\(prefix)\(attack) refused: "),
                    "\(attack) from the \(from) under the unit: \(message)")
            }
        }
        #expect(try mainPID() == before, "the agent's process changed while it was attacked")
        #expect(try show("ActiveState")["ActiveState"] == "active")
        let journal = try journalText(after: cursor)
        #expect(journal.contains("refused, it names a process outside the plug-in's own"), "\(journal.suffix(2_000))")
    }
}

/// The attacks of Tests/Fixtures/plugins/attacks.h made under the unit: all but `ptrace` and
/// `process_vm_*`, which the unit's own filter (`@system-service` leaves out `@debug`) answers by
/// killing the calling process, so the plug-in's child would end and its siblings with it before
/// any ruling (IsolationClassTests makes them outside the unit).
enum IsolationAttacks {
    static let underTheUnit = [
        "kill_thread", "tkill_thread", "tgkill_thread", "sighup_thread", "kill_agent_group", "kill_everyone",
        "proc_mem", "prlimit_nofile", "prlimit_cpu", "prlimit_as", "oom_score_adj", "setpriority", "proc_fd_stdout",
        "sched_setaffinity", "ioprio_set", "f_setown", "f_setown_thread", "clone_parent",
    ]
}
