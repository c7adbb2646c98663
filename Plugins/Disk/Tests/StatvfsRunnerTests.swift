import Foundation
import Testing
@testable import DiskProbe

@Suite struct StatvfsRunnerTests {
    let good = DiskFixtures.stats(blocks: 100, used: 10)

    @Test func aStuckCallTimesOutWhileTheOthersReport() {
        let fake = FakeStatvfs(["/a": .stats(good), "/b": .failed(EACCES)], blocking: ["/stuck"])
        defer { fake.release() }
        let runner = StatvfsRunner(timeoutNanoseconds: 100_000_000, statFunction: fake.function)
        let results = runner.run(["/a", "/stuck", "/b"])
        #expect(results["/a"] == .stats(good))
        #expect(results["/b"] == .failed(EACCES))
        #expect(results["/stuck"] == .timedOut)
        #expect(runner.stuckMountPoints == ["/stuck"])
    }

    @Test func noSecondCallStartsWhileTheFirstIsStuck() throws {
        let fake = FakeStatvfs(["/a": .stats(good), "/stuck": .stats(good)], blocking: ["/stuck"])
        defer { fake.release() }
        let runner = StatvfsRunner(timeoutNanoseconds: 50_000_000, statFunction: fake.function)
        _ = runner.run(["/a", "/stuck"])
        for _ in 0..<5 {
            let results = runner.run(["/a", "/stuck"])
            guard case .stillBlocked(let nanoseconds)? = results["/stuck"] else {
                Issue.record("expected stillBlocked, got \(String(describing: results["/stuck"]))")
                return
            }
            #expect(nanoseconds > 0)
            #expect(results["/a"] == .stats(good))
        }
        #expect(fake.calls("/stuck") == 1)
        #expect(fake.calls("/a") == 6)
    }

    @Test func aMountThatAnswersAgainIsCalledAgain() throws {
        let fake = FakeStatvfs(["/stuck": .stats(good)], blocking: ["/stuck"])
        let runner = StatvfsRunner(timeoutNanoseconds: 50_000_000, statFunction: fake.function)
        #expect(runner.run(["/stuck"])["/stuck"] == .timedOut)
        fake.release()
        // The stuck worker finishes on its own thread; wait for it (bounded) before sampling.
        let deadline = Date().addingTimeInterval(10)
        while !runner.stuckMountPoints.isEmpty, Date() < deadline { usleep(1000) }
        #expect(runner.stuckMountPoints.isEmpty)
        #expect(runner.run(["/stuck"])["/stuck"] == .stats(good))
        #expect(fake.calls("/stuck") == 2)
    }
}

@Suite struct LibraryPinTests {
    /// The probe pins the file its code was loaded from; linked into this test binary, that file
    /// is the test binary itself.
    @Test func findsTheFileHoldingTheProbesCode() throws {
        let executable = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        #expect(LibraryPin.ownFile() == executable)
    }
}
