import Dispatch
import Foundation
import Logging
import PathwatchJSON
import PathwatchProbeKit
import PathwatchTestSupport
import Synchronization
import Testing

@testable import PathwatchAgent
@testable import PathwatchSinkKit

/// A sink that renders each batch while holding its own lock, the lock its `status()` takes too.
/// Were a snapshot to ask the sinks for their status when first rendered, this sink would wait
/// for itself inside `submit`, and the agent's report with it.
private final class LockedRenderingSink: Sink {
    static let shared = LockedRenderingSink()
    private let state = Mutex<(renders: Int, document: String, metrics: String)>((0, "", ""))
    let rendered = DispatchSemaphore(value: 0)

    func submit(_ batch: SinkBatch) {
        state.withLock { s in
            s.document = batch.snapshot.jsonText()
            s.metrics = PrometheusExposition.render(batch.snapshot)
            s.renders += 1
        }
        rendered.signal()
    }

    /// How many batches it rendered, as its `dropped` count: a number only this sink knows.
    func status() -> SinkStatus {
        state.withLock { SinkStatus(type: "test", target: "locked", queued: 0, dropped: $0.renders) }
    }
    func drain(timeout: Double, stopAskedAt: UInt64?) {}

    var last: (document: String, metrics: String) { state.withLock { ($0.document, $0.metrics) } }
}

@Suite(.onItsOwnThread) struct SnapshotCaptureTests {
    /// Each report's snapshot carries the sinks' statuses as they were when it was made, and a
    /// sink renders it under its own lock without being asked anything again.
    @Test func aSinkRendersUnderItsOwnLockWithoutBeingAskedAgain() throws {
        let dir = try FixturePlugins.folderWithTestProbe()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        try FileManager.default.createDirectory(
            at: dir.appendingPathComponent("state"), withIntermediateDirectories: true)
        let file = try writeConfig(
            """
            {"agent": {"name": "locks", "interval": "100ms", "plugin_dirs": ["."], "state_dir": "state"},
             "probes": [{"id": "p", "plugin": "testprobe", "isolation": "inline", "config": {"checks": 3, "counter": true}}],
             "sinks": [{"type": "locked"}]}
            """, in: dir)
        // A sink kind of the test's own, registered as any sink module registers its kind.
        let kinds = SinkRegistry(
            [SinkKind(type: "locked", settings: LockedSinkSettings.self, triggers: .fixed([.change, .every]))],
            whenNoneConfigured: [])
        let loaded = try ConfigLoader.load(file: file.path, sinks: kinds)
        let sink = LockedRenderingSink.shared
        let agent = Agent(
            config: loaded, logger: AgentLogger(logger: Logger(label: "snapshot-capture"), redactor: SecretRedactor()))
        try agent.start()
        defer { agent.stop() }
        // The third render's snapshot was made after the sink had rendered at least one batch.
        for _ in 0..<3 {
            #expect(sink.rendered.wait(timeout: .now() + 30) == .success, "a report never reached the sink")
        }
        let (text, metrics) = sink.last
        let document = try JSONParser.parse(text)
        let sinks = try #require(document["sinks"]?.arrayValue)
        #expect(sinks.count == 1 && sinks[0]["target"] == "locked")
        #expect((sinks[0]["dropped"]?.numberValue ?? 0) >= 1, "\(text)")
        #expect(document["probes"]?.arrayValue?.first?["id"] == "p")
        #expect(metrics.contains(#"pathwatch_sink_dropped_total{sink="test:locked"}"#), "\(metrics)")
    }
}

/// The settings of the test's sink kind: nothing to configure; it makes the one shared sink.
private struct LockedSinkSettings: SinkMaking, Decodable, Equatable {
    func makeSink(_ context: SinkContext) -> any Sink { LockedRenderingSink.shared }
}
