import Dispatch
import Glibc
import Logging
import PathwatchBase
import PathwatchClockTesting
import PathwatchProbeKit
import PathwatchTestSupport
import Synchronization
import Testing

@testable import PathwatchAgent
@testable import PathwatchSinkKit

/// A sink that keeps, for each whole-state batch it is handed, the sequence number each probe's
/// check carries in its message.
private final class SequenceSink: Sink {
    private let seen = Mutex<[[String: Int]]>([])
    var batches: [[String: Int]] { seen.withLock { $0 } }

    func submit(_ batch: SinkBatch) {
        var numbers: [String: Int] = [:]
        for check in batch.snapshot.checks { numbers[check.probe] = Int(check.message) }
        seen.withLock { $0.append(numbers) }
    }
    func status() -> SinkStatus { SinkStatus(type: "test", target: "sequence", queued: 0, dropped: 0) }
    func drain(timeout: Double, stopAskedAt: UInt64?) {}
}

/// The pipeline keeps the order of reports by construction: what is sent to it runs one piece at
/// a time, in the order sent, and every batch is handed to the sinks as it is made.
@Suite(.onItsOwnThread) struct AgentPipelineTests {
    @Test func workSentFromManyThreadsRunsOnePieceAtATimeInTheOrderEachThreadSentIt() {
        let pipeline = PipelineExecutor()
        let ran = Mutex<[(thread: Int, n: Int, onPipeline: Bool)]>([])
        let running = Atomic<Int>(0)
        let overlapped = Atomic<Bool>(false)
        let senders = (0..<4).map { SerialThread(name: "pw-test-send\($0)") }
        let sent = DispatchGroup()
        for (index, sender) in senders.enumerated() {
            sent.enter()
            sender.async {
                for n in 0..<500 {
                    pipeline.run {
                        if running.add(1, ordering: .relaxed).newValue > 1 {
                            overlapped.store(true, ordering: .relaxed)
                        }
                        ran.withLock { $0.append((index, n, pipeline.isRunningHere)) }
                        running.subtract(1, ordering: .relaxed)
                    }
                }
                sent.leave()
            }
        }
        sent.wait()
        let all = pipeline.runAndWait { ran.withLock { $0 } }
        #expect(all.count == 2_000)
        #expect(all.allSatisfy { $0.onPipeline }, "some work ran where the pipeline was not running")
        let didOverlap = overlapped.load(ordering: .relaxed)
        #expect(!didOverlap, "two pieces of work ran at once")
        #expect(!pipeline.isRunningHere)
        for index in senders.indices {
            #expect(all.filter { $0.thread == index }.map(\.n) == Array(0..<500), "thread \(index)'s work crossed")
        }
        senders.forEach { $0.finish() }
        pipeline.finish()
    }

    /// A sender that outruns the pipeline (a plug-in firing events in a loop) is held once
    /// `heldLimit` of its reports wait, and lets go as they are handled: the queue has a bound.
    @Test func aSenderThatOutrunsThePipelineIsHeldAtTheBound() {
        let pipeline = PipelineExecutor()
        let release = DispatchSemaphore(value: 0)
        let blocked = Atomic<Bool>(false)
        // Another thread runs the pipeline and is held up in it.
        let blocker = SerialThread(name: "pw-test-block")
        blocker.async {
            pipeline.run {
                blocked.store(true, ordering: .relaxed)
                release.wait()
            }
        }
        #expect(waitUntil(timeout: 30) { blocked.load(ordering: .relaxed) })
        let sent = Atomic<Int>(0)
        let handled = Atomic<Int>(0)
        let total = PipelineExecutor.heldLimit + 100
        let sender = SerialThread(name: "pw-test-flood")
        sender.async {
            for _ in 0..<total {
                pipeline.runHeld { handled.add(1, ordering: .relaxed) }
                sent.add(1, ordering: .relaxed)
            }
        }
        #expect(waitUntil(timeout: 30) { sent.load(ordering: .relaxed) == PipelineExecutor.heldLimit })
        // Nothing is handled while the pipeline is held up, so the sender must stay where it is.
        usleep(100_000)
        #expect(sent.load(ordering: .relaxed) == PipelineExecutor.heldLimit, "the sender went past the bound")
        release.signal()
        #expect(waitUntil(timeout: 30) { handled.load(ordering: .relaxed) == total }, "not every report was handled")
        sender.finish()
        blocker.finish()
        pipeline.finish()
    }

    @Test func batchesReachASinkInTheOrderTheCheckBookMadeThem() throws {
        let loaded = try ConfigLoader.load(
            text: #"{"agent": {"interval": "10s"}, "probes": [], "sinks": []}"#, file: "/nonexistent/pathwatch.json",
            sinks: SinkRegistry([], whenNoneConfigured: []))
        let agent = Agent(
            config: loaded, logger: AgentLogger(logger: Logger(label: "pipeline-order"), redactor: SecretRedactor()),
            observer: nil, clock: ManualClock())
        let sink = SequenceSink()
        let probes = (0..<6).map { "p\($0)" }
        agent.pipeline.call { p in
            p.state.sinks = [sink]
            p.state.book.probeOrder = probes
            for probe in probes {
                p.state.book.policies[probe] = ProbePolicy(
                    failAfter: 1, recoverAfter: 1, needsNetwork: false, plugin: "test")
            }
        }
        // Six probes report at once from threads of their own; each report flips its check's
        // state, so each makes a whole-state batch at once.
        let senders = probes.map { SerialThread(name: "pw-test-\($0)") }
        let sent = DispatchGroup()
        for (probe, sender) in zip(probes, senders) {
            sent.enter()
            sender.async {
                for n in 1...200 {
                    let state: CheckState = n % 2 == 0 ? .ok : .warning
                    agent.receive(.sample([Observation(key: "seq", state: state, message: "\(n)")]), from: probe)
                }
                sent.leave()
            }
        }
        sent.wait()
        agent.settle()
        let batches = sink.batches
        #expect(batches.count >= 1_200, "every state change makes a batch at once: \(batches.count)")
        // No batch the sink is handed is older than one it had before: each probe's number never goes back.
        var latest: [String: Int] = [:]
        for (index, batch) in batches.enumerated() {
            for (probe, n) in batch {
                #expect(
                    n >= latest[probe, default: 0],
                    "batch \(index) went back for \(probe): \(n) after \(latest[probe]!)")
                latest[probe] = n
            }
        }
        #expect(latest == Dictionary(uniqueKeysWithValues: probes.map { ($0, 200) }))
        senders.forEach { $0.finish() }
    }
}
