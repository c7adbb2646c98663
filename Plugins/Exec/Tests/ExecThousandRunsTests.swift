import Foundation
import PathwatchTestSupport
import Testing

/// A thousand command runs in the running agent (process isolation, the default, unprivileged):
/// counted on the real plug-in child from /proc, no zombie, no descriptor left open and no
/// process left in the commands' process groups.
@Suite(.serialized, .onItsOwnThread) struct ExecThousandRunsTests {
    /// Every run appends one byte to `counter`; half the commands leave a background `sleep`
    /// in their group, which the plug-in must kill once the command exits. The probe's timeout
    /// is well past its interval: a sample's deadline would otherwise be the interval (200 ms),
    /// which `/bin/sh` on a busy machine can overrun, and what is tested is what runs leave.
    static func config(port: Int, counter: URL, marker: String) -> String {
        let commands = (0..<10).map { i in
            let fork = i % 2 == 0 ? "sleep 60 >/dev/null 2>&1 & " : ""
            let script = "printf x >> \(counter.path); \(fork)echo \\\"OK - run \(i)\\\""
            return
                #"{"name": "c\#(i)", "command": ["/bin/sh", "-c", "\#(script)"], "env": {"PW_TEST_MARK": "\#(marker)"}}"#
        }
        return """
            {"agent": {"plugin_dirs": ["."], "interval": "200ms", "state_dir": "queues"},
             "probes": [{"id": "many", "plugin": "exec", "timeout": "10s", "config": {"commands": [\(commands.joined(separator: ", "))]}}],
             "sinks": [{"type": "http", "listen": "127.0.0.1:\(port)"}]}
            """
    }

    @Test func aThousandRunsLeaveNoZombieDescriptorOrProcess() throws {
        let dir = try ExecLiveAgentTests.folderWithExec()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let counter = dir.appendingPathComponent("runs")
        try Data().write(to: counter)
        let marker = UUID().uuidString
        let agent = try LiveAgent(in: dir) { Self.config(port: $0, counter: counter, marker: marker) }
        defer { agent.stop() }
        func runs() -> Int { ((try? FileManager.default.attributesOfItem(atPath: counter.path))?[.size] as? Int) ?? 0 }
        let child = try waitFor("the plug-in child's pid in /status", timeout: 30) { () -> Int32? in
            guard runs() >= 10, let body = try? agent.request("/status").body,
                let document = try? parseJSONObject(body),
                let probes = document["probes"] as? [[String: Any]],
                let probe = probes.first(where: { $0["id"] as? String == "many" })
            else { return nil }
            return (probe["pid"] as? NSNumber)?.int32Value
        }
        let agentPid = agent.process.processIdentifier
        #expect(child != agentPid)
        // Between samples the child holds only its steady descriptors; during one, a pipe pair and
        // a pidfd per running command. The baseline is the fewest seen across a few samples.
        var baseline = Int.max
        let firstRuns = runs()
        _ = waitUntil(timeout: 30) {
            baseline = min(baseline, Self.descriptors(of: child))
            return runs() >= firstRuns + 30
        }
        let total = try waitFor("1,000 runs", timeout: 300, interval: 0.2) { runs() >= 1_000 ? runs() : nil }
        #expect(total >= 1_000)
        #expect(
            waitUntil(timeout: 10) { Self.descriptors(of: child) <= baseline },
            "the plug-in child holds \(Self.descriptors(of: child)) descriptors, \(baseline) after its first samples")
        #expect(
            waitUntil(timeout: 10) { Self.zombies(of: [child, agentPid]).isEmpty },
            "zombies: \(Self.zombies(of: [child, agentPid]))")
        // Every command's `sleep` was killed with its group: between samples nothing marked lives.
        #expect(waitUntil(timeout: 10) { Self.marked(marker).isEmpty }, "left: \(Self.marked(marker))")
        let checks = try parseJSONObject(try agent.request("/status").body)["checks"] as? [[String: Any]] ?? []
        #expect(checks.count == 10)
        for check in checks {
            #expect(check["state"] as? String == "ok", "\(check["id"] ?? ""): \(check["message"] ?? "")")
        }
        agent.stop()
        #expect(waitUntil(timeout: 10) { Self.marked(marker).isEmpty }, "left after stop: \(Self.marked(marker))")
    }

    static func descriptors(of pid: Int32) -> Int {
        ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")) ?? []).count
    }

    /// /proc/N/stat: "pid (comm) state ppid pgrp …"; comm may hold spaces and parentheses.
    static func stat(_ pid: String) -> (state: Substring, ppid: Int32)? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let end = text.lastIndex(of: ")")
        else { return nil }
        let fields = text[text.index(after: end)...].split(separator: " ")
        guard fields.count > 2, let ppid = Int32(fields[1]) else { return nil }
        return (fields[0], ppid)
    }

    static var pids: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []).filter { $0.allSatisfy(\.isNumber) }
    }

    static func zombies(of parents: [Int32]) -> [String] {
        pids.filter { pid in stat(pid).map { $0.state == "Z" && parents.contains($0.ppid) } ?? false }
    }

    /// Processes whose environment carries the commands' marker: the commands and whatever
    /// they started, in their process groups or not.
    static func marked(_ marker: String) -> [String] {
        let needle = Array("PW_TEST_MARK=\(marker)".utf8)
        return pids.filter { pid in
            guard let environ = FileManager.default.contents(atPath: "/proc/\(pid)/environ") else { return false }
            return environ.split(separator: 0).contains { Array($0) == needle } && stat(pid)?.state != "Z"
        }
    }
}
