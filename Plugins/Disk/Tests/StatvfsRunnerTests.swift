import Foundation
import PathwatchTestSupport
import Testing

@testable import DiskProbe

@Suite(.onItsOwnThread) struct StatvfsRunnerTests {
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

    /// The first release started a thread per mount per sample; now one worker serves every
    /// sample, and only a stuck call costs another.
    @Test func samplesStartNoThreadsBeyondTheOneWorker() {
        let mounts = (0..<5).map { "/m\($0)" }
        let fake = FakeStatvfs(Dictionary(uniqueKeysWithValues: mounts.map { ($0, StatOutcome.stats(good)) }))
        let runner = StatvfsRunner(timeoutNanoseconds: 1_000_000_000, statFunction: fake.function)
        for _ in 0..<20 {
            let results = runner.run(mounts)
            #expect(results.values.allSatisfy { $0 == .stats(good) } && results.count == 5)
        }
        #expect(runner.threadsStarted == 1)
        #expect(mounts.allSatisfy { fake.calls($0) == 20 })
    }

    @Test func aStuckMountCostsOneMoreThreadAndDelaysNoOtherMount() {
        let fake = FakeStatvfs(["/a": .stats(good), "/b": .stats(good), "/c": .stats(good)], blocking: ["/b"])
        defer { fake.release() }
        let runner = StatvfsRunner(timeoutNanoseconds: 200_000_000, statFunction: fake.function)
        for _ in 0..<5 {
            let results = runner.run(["/a", "/b", "/c"])
            #expect(results["/a"] == .stats(good))
            #expect(results["/c"] == .stats(good), "the mount queued behind the stuck one still reports")
        }
        #expect(runner.threadsStarted == 2, "the worker left to the stuck call, and its replacement")
        #expect(fake.calls("/b") == 1)
    }

    @Test func aMountThatAnswersAgainIsCalledAgain() throws {
        let fake = FakeStatvfs(["/stuck": .stats(good)], blocking: ["/stuck"])
        let runner = StatvfsRunner(timeoutNanoseconds: 50_000_000, statFunction: fake.function)
        #expect(runner.run(["/stuck"])["/stuck"] == .timedOut)
        fake.release()
        // The stuck worker finishes on its own thread; wait for it (bounded) before sampling.
        _ = waitUntil(timeout: 10, interval: 0.001) { runner.stuckMountPoints.isEmpty }
        #expect(runner.stuckMountPoints.isEmpty)
        #expect(runner.run(["/stuck"])["/stuck"] == .stats(good))
        #expect(fake.calls("/stuck") == 2)
    }
}

@Suite(.onItsOwnThread) struct LibraryPinTests {
    /// The probe pins the file its code was loaded from; linked into this test binary, that file
    /// is the test binary itself.
    @Test func findsTheFileHoldingTheProbesCode() throws {
        let executable = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        #expect(LibraryPin.ownFile() == executable)
    }
}
