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
        #expect(results == [.stats(good), .timedOut, .failed(EACCES)])
        #expect(runner.stuckMountPoints == ["/stuck"])
    }

    @Test func noSecondCallStartsWhileTheFirstIsStuck() throws {
        let fake = FakeStatvfs(["/a": .stats(good), "/stuck": .stats(good)], blocking: ["/stuck"])
        defer { fake.release() }
        let runner = StatvfsRunner(timeoutNanoseconds: 50_000_000, statFunction: fake.function)
        _ = runner.run(["/a", "/stuck"])
        for _ in 0..<5 {
            let results = runner.run(["/a", "/stuck"])
            guard results.count == 2, case .stillBlocked(let nanoseconds) = results[1] else {
                Issue.record("expected stillBlocked, got \(results)")
                return
            }
            #expect(nanoseconds > 0)
            #expect(results[0] == .stats(good))
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
            #expect(results == Array(repeating: .stats(good), count: 5))
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
            #expect(results.count == 3)
            #expect(results.first == .stats(good))
            #expect(results.last == .stats(good), "the mount queued behind the stuck one still reports")
        }
        #expect(runner.threadsStarted == 2, "the worker left to the stuck call, and its replacement")
        #expect(fake.calls("/b") == 1)
    }

    /// Results are placed by position: with many mounts, one stuck among them and the mounts
    /// behind it moved to a fresh worker, each mount still gets its own answer, in its place,
    /// in this sample and the next.
    @Test func eachMountsResultStaysInItsPlace() {
        let mounts = (0..<60).map { "/m\($0)" }
        var answers: [String: StatOutcome] = [:]
        for (i, mount) in mounts.enumerated() {
            answers[mount] =
                i % 3 == 0 ? .failed(Int32(i)) : .stats(DiskFixtures.stats(blocks: UInt64(100 + i), used: 1))
        }
        let fake = FakeStatvfs(answers, blocking: ["/m7"])
        defer { fake.release() }
        // A second for the sample: the stuck call stalls its worker after a quarter of it, and
        // the 52 calls behind it have the rest however busy the machine is.
        let runner = StatvfsRunner(timeoutNanoseconds: 1_000_000_000, statFunction: fake.function)
        func expected(_ i: Int) -> StatvfsRunner.Result {
            i % 3 == 0 ? .failed(Int32(i)) : .stats(DiskFixtures.stats(blocks: UInt64(100 + i), used: 1))
        }
        let first = runner.run(mounts)
        #expect(first.count == 60)
        for i in mounts.indices where i != 7 { #expect(first[i] == expected(i), "mount \(i)") }
        #expect(first[7] == .timedOut)
        let second = runner.run(mounts)
        for i in mounts.indices where i != 7 { #expect(second[i] == expected(i), "mount \(i)") }
        guard case .stillBlocked = second[7] else {
            Issue.record("expected the stuck mount still blocked, got \(second[7])")
            return
        }
    }

    @Test func aMountThatAnswersAgainIsCalledAgain() throws {
        let fake = FakeStatvfs(["/stuck": .stats(good)], blocking: ["/stuck"])
        let runner = StatvfsRunner(timeoutNanoseconds: 50_000_000, statFunction: fake.function)
        #expect(runner.run(["/stuck"]) == [.timedOut])
        fake.release()
        // The stuck worker finishes on its own thread; wait for it (bounded) before sampling.
        _ = waitUntil(timeout: 10, interval: 0.001) { runner.stuckMountPoints.isEmpty }
        #expect(runner.stuckMountPoints.isEmpty)
        #expect(runner.run(["/stuck"]) == [.stats(good)])
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
