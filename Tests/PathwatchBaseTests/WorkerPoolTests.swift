import Dispatch
import Foundation
import PathwatchTestSupport
import Synchronization
import Testing

@testable import PathwatchBase

/// Many lanes on few threads: each lane's jobs in order and never two at once, a hung job holding
/// its thread and nothing else, threads that grow with blocked work and go again when idle.
@Suite(.onItsOwnThread) struct WorkerPoolTests {
    @Test func aThousandLanesShareTheSteadyThreadsAndKeepTheirOrder() {
        let pool = WorkerPool(name: "pw-test-pool", steady: 2, limit: 64)
        let lanes = (0..<1000).map { _ in pool.lane() }
        let seen = Mutex<[Int: [Int]]>([:])
        let inside = Mutex<Set<Int>>([])
        let overlaps = Atomic<Int>(0)
        let done = DispatchGroup()
        for round in 0..<5 {
            for (index, lane) in lanes.enumerated() {
                done.enter()
                lane.async {
                    if !inside.withLock({ $0.insert(index).inserted }) { overlaps.add(1, ordering: .relaxed) }
                    seen.withLock { $0[index, default: []].append(round) }
                    inside.withLock { _ = $0.remove(index) }
                    done.leave()
                }
            }
        }
        #expect(done.wait(timeout: .now() + 60) == .success)
        #expect(overlaps.load(ordering: .relaxed) == 0, "two jobs of one lane ran at once")
        #expect(seen.withLock { $0.values.allSatisfy { $0 == [0, 1, 2, 3, 4] } }, "a lane's jobs out of order")
        // Jobs that never block need no thread beyond the steady ones (and what a growth step
        // added while a burst was queued).
        #expect(pool.threadCount <= 16, "\(pool.threadCount) threads for 5,000 short jobs")
    }

    @Test func aHungJobHoldsItsThreadAndNoOtherLane() {
        let pool = WorkerPool(name: "pw-test-hung", steady: 1, limit: 8, growthDelayNanoseconds: 5_000_000)
        let release = DispatchSemaphore(value: 0)
        let hungStarted = DispatchSemaphore(value: 0)
        let hung = pool.lane()
        hung.async {
            hungStarted.signal()
            release.wait()
        }
        #expect(hungStarted.wait(timeout: .now() + 10) == .success)
        // Every other lane still runs, on a thread the pool adds.
        let others = (0..<20).map { _ in pool.lane() }
        let ran = DispatchGroup()
        for lane in others {
            ran.enter()
            lane.async { ran.leave() }
        }
        #expect(ran.wait(timeout: .now() + 10) == .success, "a hung job held other lanes")
        // The hung lane's next job waits for the hung one: never two at once in a lane.
        let after = DispatchSemaphore(value: 0)
        hung.async { after.signal() }
        #expect(after.wait(timeout: .now() + 0.2) == .timedOut)
        release.signal()
        #expect(after.wait(timeout: .now() + 10) == .success)
        #expect(pool.threadCount >= 2 && pool.threadCount <= 8, "\(pool.threadCount)")
    }

    @Test func threadsBeyondTheSteadyOnesEndWhenIdle() {
        let pool = WorkerPool(
            name: "pw-test-idle", steady: 1, limit: 8, growthDelayNanoseconds: 5_000_000, idleLifetime: 0.3)
        let release = DispatchSemaphore(value: 0)
        let started = DispatchGroup()
        let lanes = (0..<4).map { _ in pool.lane() }
        for lane in lanes {
            started.enter()
            lane.async {
                started.leave()
                release.wait()
            }
        }
        #expect(started.wait(timeout: .now() + 10) == .success, "blocked lanes did not each get a thread")
        #expect(pool.threadCount == 4)
        for _ in lanes { release.signal() }
        #expect(waitUntil(timeout: 10) { pool.threadCount == 1 }, "\(pool.threadCount) threads after the work ended")
    }

    /// A steady thread with nothing to do sleeps until work comes: it used to time out once per
    /// `idleLifetime` only to stay, which woke every idle agent and plug-in child for nothing.
    @Test func aSteadyThreadSleepsUntilWorkComes() throws {
        let pool = WorkerPool(name: "pw-test-sleep", steady: 1, limit: 2, idleLifetime: 0.02)
        let ran = DispatchSemaphore(value: 0)
        pool.lane().async { ran.signal() }
        #expect(ran.wait(timeout: .now() + 10) == .success)
        let thread = try #require(Self.thread(named: "pw-test-sleep"), "the pool's thread is not in /proc/self/task")
        // Its wake-ups over twenty idle lifetimes, once it sleeps: each timed-out wait was a
        // voluntary switch.
        #expect(waitUntil(timeout: 10) { Self.isSleeping(thread) })
        let before = Self.switches(of: thread)
        Thread.sleep(forTimeInterval: 0.4)
        #expect(Self.switches(of: thread) == before, "the idle steady thread woke up")
        // And work still wakes it.
        pool.lane().async { ran.signal() }
        #expect(ran.wait(timeout: .now() + 10) == .success)
    }

    private static func thread(named name: String) -> String? {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        return tasks.first { tid in
            (try? String(contentsOfFile: "/proc/self/task/\(tid)/comm", encoding: .utf8))?
                .trimmingCharacters(in: .whitespacesAndNewlines) == name
        }
    }

    private static func isSleeping(_ tid: String) -> Bool {
        // The state follows the command name's closing parenthesis in `stat`.
        guard let stat = try? String(contentsOfFile: "/proc/self/task/\(tid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return false }
        return stat[stat.index(after: close)...].trimmingCharacters(in: .whitespaces).hasPrefix("S")
    }

    private static func switches(of tid: String) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/self/task/\(tid)/status", encoding: .utf8) else {
            return nil
        }
        let line = status.split(separator: "\n").first { $0.hasPrefix("voluntary_ctxt_switches:") }
        return line.flatMap { Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) }
    }

    @Test func jobsGivenAfterFinishRunOnTheCallerOnceTheLaneIsIdle() {
        let pool = WorkerPool(name: "pw-test-finish", steady: 1, limit: 2)
        // A lane with nothing queued runs a job given after finish on the caller.
        let idle = pool.lane()
        idle.finish()
        let onCaller = Atomic<Bool>(false)
        idle.async { onCaller.store(true, ordering: .relaxed) }
        let ran = onCaller.load(ordering: .relaxed)
        #expect(ran)
        // One still running: the later job waits its turn rather than overlap it.
        let busy = pool.lane()
        let release = DispatchSemaphore(value: 0)
        let order = Mutex<[Int]>([])
        let done = DispatchSemaphore(value: 0)
        busy.async {
            release.wait()
            order.withLock { $0.append(1) }
        }
        busy.finish()
        busy.async {
            order.withLock { $0.append(2) }
            done.signal()
        }
        release.signal()
        #expect(done.wait(timeout: .now() + 10) == .success)
        #expect(order.withLock { $0 } == [1, 2])
    }
}
