import Foundation
import PathwatchTestSupport
import Testing

/// What a killed test run left is deleted by the next one; what a live run made is not.
@Suite(.serialized, .onItsOwnThread) struct LeftoverNamespaceTests {
    @Test func theOwnerIsTheFirstDigitsAfterPw() {
        #expect(LeftoverNamespaces.owner(of: "pwcn4711n2") == 4711)
        #expect(LeftoverNamespaces.owner(of: "pwbw-4711-rate-s") == 4711)
        #expect(LeftoverNamespaces.owner(of: "pwlsp12n1") == 12)
        #expect(LeftoverNamespaces.owner(of: "pwnone") == nil)
    }

    @Test(.needsNamespaces) func aDeadRunsNamespaceIsDeletedAndALiveOnesKept() throws {
        // A pid that has exited: a child that ran `true` and was reaped.
        let child = Process()
        child.executableURL = URL(fileURLWithPath: "/bin/true")
        try child.run()
        child.waitUntilExit()
        let dead = "pwlt\(child.processIdentifier)n1"
        let live = "pwlt\(getpid())n900"
        for name in [dead, live] {
            let added = try run(["ip", "netns", "add", name])
            #expect(added.status == 0, "ip netns add \(name): \(added.stderr)")
        }
        defer {
            _ = try? run(["ip", "netns", "del", live])
            _ = try? run(["ip", "netns", "del", dead])
        }
        LeftoverNamespaces.sweepNow()
        let left = Set((try? FileManager.default.contentsOfDirectory(atPath: "/run/netns")) ?? [])
        #expect(!left.contains(dead), "the dead run's namespace \(dead) is still there")
        #expect(left.contains(live), "this run's namespace \(live) was deleted")
    }
}
