import Foundation
import PathwatchTestSupport
import Testing

/// A plug-in child never outlives its agent, and waits for that without waking: its watch thread
/// sleeps in poll(2) on a pidfd of the agent. Before, it woke once a second to compare its
/// parent's pid — a thousand idle children, a thousand wake-ups a second.
@Suite(.serialized, .onItsOwnThread) struct OrphanWatchTests {
    @Test func theChildWaitsOnTheAgentsPidfdAndEndsWhenTheAgentIsKilled() throws {
        let dir = try SharedChildTests.folder()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let agent = try SharedChildTests.start([#"{"id": "p", "plugin": "testprobe", "interval": "1h"}"#], in: dir)
        defer { agent.stop(grace: 1) }
        #expect(SharedChildTests.waitForAll(agent, ["p/c0"]) != nil, "stderr: \(agent.errorOutput.suffix(2_000))")
        let child = try #require(SharedChildTests.pluginChildren(of: agent.processIdentifier).first)
        // The watch thread, by its name, and where the kernel has it sleeping.
        let waiting = waitUntilValue(timeout: 10) { () -> String? in
            let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(child)/task")) ?? []
            guard
                let watch = tasks.first(where: {
                    (try? String(contentsOfFile: "/proc/\(child)/task/\($0)/comm", encoding: .utf8))?.hasPrefix(
                        "pw-orphan-watch") == true
                })
            else { return nil }
            let wchan = (try? String(contentsOfFile: "/proc/\(child)/task/\(watch)/wchan", encoding: .utf8)) ?? ""
            return wchan.contains("poll") ? wchan : nil
        }
        #expect(waiting != nil, "the watch thread does not sleep in poll(2)")
        // The agent dies without a word to its children: the child ends on its own.
        kill(agent.processIdentifier, SIGKILL)
        #expect(waitUntil(timeout: 10) { kill(child, 0) != 0 }, "the child \(child) outlived its killed agent")
    }
}
