import CPathwatchProbe
import Glibc
import PathwatchProbeKit
import Testing

@testable import PathwatchAgent
@testable import PathwatchPluginHost

/// A plug-in's child writes what it is handed straight into the result record, the agent
/// inline keeps Swift values: both go through one set of checks, and what the agent reads back
/// from the record is what it would have kept inline — observations, refusals and problems —
/// for good observations and for everything a plug-in could get wrong.
@Suite struct ObservationRecordTests {
    /// C memory for the observations of one case, freed with it.
    final class CMemory {
        private var blocks: [UnsafeMutableRawPointer] = []

        func text(_ bytes: [UInt8]) -> UnsafePointer<CChar> {
            let block = UnsafeMutableRawPointer.allocate(byteCount: bytes.count + 1, alignment: 1)
            block.copyMemory(from: bytes, byteCount: bytes.count)
            block.storeBytes(of: 0, toByteOffset: bytes.count, as: UInt8.self)
            blocks.append(block)
            return UnsafePointer(block.assumingMemoryBound(to: CChar.self))
        }

        func text(_ string: String) -> UnsafePointer<CChar> { text(Array(string.utf8)) }

        func array<T>(_ items: [T]) -> UnsafePointer<T>? {
            guard !items.isEmpty else { return nil }
            let block = UnsafeMutablePointer<T>.allocate(capacity: items.count)
            block.initialize(from: items, count: items.count)
            blocks.append(UnsafeMutableRawPointer(block))
            return UnsafePointer(block)
        }

        deinit { blocks.forEach { $0.deallocate() } }
    }

    /// One emit of a case: an observation, or a null pointer.
    typealias Emit = @Sendable (CMemory) -> pw_observation?

    static func observation(
        key: UnsafePointer<CChar>?, state: Int32 = 0, message: UnsafePointer<CChar>? = nil,
        metrics: [pw_metric] = [], labels: [pw_label] = [], in memory: CMemory
    ) -> pw_observation {
        pw_observation(
            struct_size: MemoryLayout<pw_observation>.size, key: key, state: state, message: message,
            metrics: memory.array(metrics), metric_count: metrics.count, labels: memory.array(labels),
            label_count: labels.count)
    }

    static func metric(_ name: UnsafePointer<CChar>?, _ value: Double) -> pw_metric {
        pw_metric(
            struct_size: MemoryLayout<pw_metric>.size, name: name, value: value, labels: nil, label_count: 0, kind: 0,
            reserved: 0, help: nil)
    }

    static func label(_ name: UnsafePointer<CChar>?, _ value: UnsafePointer<CChar>?) -> pw_label {
        pw_label(struct_size: MemoryLayout<pw_label>.size, name: name, value: value)
    }

    static let invalidUTF8: [UInt8] = [0x61, 0xC3, 0x28, 0x62]

    /// Cases by name: what a plug-in emits in one call.
    static let cases: [(String, [Emit])] = [
        (
            "a disk check",
            [
                { m in
                    observation(
                        key: m.text("/mnt/data"), state: 1, message: m.text("91% used, 3.2 GiB free"),
                        metrics: [metric(m.text("used_pct"), 91), metric(m.text("avail_bytes"), 3_435_973_836.5)],
                        labels: [
                            label(m.text("mount"), m.text("/mnt/data")), label(m.text("fstype"), m.text("ext4")),
                            label(m.text("empty"), m.text("")),
                        ],
                        in: m)
                }
            ]
        ),
        (
            "text beyond ASCII",
            [
                { m in
                    observation(
                        key: m.text("/mnt/über 😀"), state: 2, message: m.text("«voll» — 99 %"),
                        metrics: [metric(m.text("grad_°"), -0.25)],
                        labels: [label(m.text("gerät"), m.text("/dev/sdb1 ✓"))], in: m)
                }
            ]
        ),
        (
            "metrics that are not finite",
            [
                { m in
                    observation(
                        key: m.text("x"),
                        metrics: [
                            metric(m.text("nan"), .nan), metric(m.text("ok"), 1), metric(m.text("inf"), -.infinity),
                        ], in: m)
                }
            ]
        ),
        (
            "a long message cut inside a character",
            [
                { m in
                    observation(
                        key: m.text("long"),
                        message: m.text(Array(repeating: 0x61, count: 4_095) + Array("é and more".utf8)), in: m)
                }
            ]
        ),
        (
            "a message exactly at the limit, and none",
            [
                { m in observation(key: m.text("limit"), message: m.text(Array(repeating: 0x62, count: 4_096)), in: m)
                },
                { m in observation(key: m.text("none"), in: m) },
            ]
        ),
        (
            "keys that are refused",
            [
                { m in observation(key: nil, in: m) },
                { m in observation(key: m.text(""), in: m) },
                { m in observation(key: m.text(invalidUTF8), in: m) },
                { m in observation(key: m.text("tab\there"), in: m) },
                { m in observation(key: m.text("del\u{7F}"), in: m) },
                { m in observation(key: m.text(String(repeating: "k", count: 257)), in: m) },
                { _ in nil },
            ]
        ),
        (
            "a key of 200 characters in 400 bytes",
            [{ m in observation(key: m.text(String(repeating: "é", count: 200)), in: m) }]
        ),
        (
            "bad states, metrics, labels and messages",
            [
                { m in observation(key: m.text("state"), state: 7, in: m) },
                { m in observation(key: m.text("metric"), metrics: [metric(m.text("ok"), 1), metric(nil, 2)], in: m) },
                { m in observation(key: m.text("metric name"), metrics: [metric(m.text(invalidUTF8), 2)], in: m) },
                { m in observation(key: m.text("label"), labels: [label(m.text("name"), nil)], in: m) },
                { m in observation(key: m.text("label name"), labels: [label(m.text(""), m.text("v"))], in: m) },
                { m in observation(key: m.text("message"), message: m.text(invalidUTF8), in: m) },
                { m in observation(key: m.text("kept"), in: m) },
            ]
        ),
        (
            "a key twice, and more than the probe's limit",
            [
                { m in observation(key: m.text("a"), in: m) },
                { m in observation(key: m.text("a"), state: 2, in: m) },
                { m in observation(key: m.text("b"), in: m) },
                { m in observation(key: m.text("c"), in: m) },
                { m in observation(key: m.text("d"), in: m) },
            ]
        ),
    ]

    /// Emits a case into a collector; the emit calls' answers.
    static func emit(_ emits: [Emit], into collector: ObservationCollector) -> [Int32] {
        let memory = CMemory()
        return emits.map { emit in
            guard var observation = emit(memory) else { return collector.accept(nil) }
            return collector.accept(&observation)
        }
    }

    static func describe(_ o: Observation) -> String {
        let metrics = o.metrics.map { "\($0.name)=\($0.value.bitPattern)" }
        let labels = o.labels.map { "\($0.name)=\($0.value)" }
        return "\(o.key)|\(o.state)|\(o.message)|\(metrics)|\(labels)"
    }

    @Test(arguments: cases.map(\.0)) func theRecordReadsBackAsTheValuesInlineWouldKeep(name: String) throws {
        let emits = try #require(Self.cases.first { $0.0 == name }?.1)
        let inline = ObservationCollector(maxObservations: 3)
        let child = ObservationCollector(maxObservations: 3, record: .sampled)
        let inlineAnswers = Self.emit(emits, into: inline)
        let childAnswers = Self.emit(emits, into: child)
        #expect(inlineAnswers == childAnswers)
        let record = try #require(child.finishedRecord(error: "the plug-in's error"))
        guard let read = ResultFramesTests.decoded(record) else {
            Issue.record("the agent refuses the child's record of \(record.count) bytes as malformed")
            return
        }
        #expect(read.observations.map(Self.describe) == inline.observations.map(Self.describe))
        #expect(read.problems == inline.problems)
        #expect(read.error == "the plug-in's error")
        #expect(inline.finishedRecord(error: nil) == nil)
    }

    /// Checks whose labels are all alike share one array of them, inline as in the record the
    /// agent reads from a child; labels that differ in a value keep their own.
    @Test func labelsAlikeShareOneArrayInlineAndFromAChild() throws {
        let emits: [Emit] = ["a", "b", "c"].map { key in
            { m in
                Self.observation(
                    key: m.text(key), message: m.text("HTTP 200 in 11 ms"),
                    labels: [
                        Self.label(m.text("endpoint"), m.text("http://127.0.0.1:8080")),
                        Self.label(m.text("method"), m.text(key == "c" ? "HEAD" : "GET")),
                    ], in: m)
            }
        }
        let inline = ObservationCollector(maxObservations: 3)
        let child = ObservationCollector(maxObservations: 3, record: .sampled)
        #expect(Self.emit(emits, into: inline) == [PW_OK, PW_OK, PW_OK])
        #expect(Self.emit(emits, into: child) == [PW_OK, PW_OK, PW_OK])
        let record = try #require(child.finishedRecord(error: nil))
        let read = try #require(ResultFramesTests.decoded(record))
        for observations in [inline.observations, read.observations] {
            #expect(observations.map(Self.describe) == inline.observations.map(Self.describe))
            let storage = observations.map { $0.labels.withUnsafeBufferPointer { UnsafeRawPointer($0.baseAddress) } }
            #expect(storage[0] == storage[1], "labels alike were not shared")
            #expect(storage[2] != storage[1], "labels that differ were shared")
            #expect(observations[2].labels.map(\.value) == ["http://127.0.0.1:8080", "HEAD"])
        }
    }

    @Test func whatTheChecksKeepAndRefuse() {
        let byName = Dictionary(uniqueKeysWithValues: Self.cases)
        func run(_ name: String) -> (answers: [Int32], collector: ObservationCollector) {
            let collector = ObservationCollector(maxObservations: 3)
            return (Self.emit(byName[name]!, into: collector), collector)
        }
        let nonFinite = run("metrics that are not finite")
        #expect(nonFinite.collector.observations.first?.metrics.map(\.name) == ["ok"])
        #expect(
            nonFinite.collector.problems == [
                "check \"x\": metric nan is not finite (nan); dropped",
                "check \"x\": metric inf is not finite (-inf); dropped",
            ])
        let long = run("a long message cut inside a character").collector.observations.first?.message ?? ""
        #expect(long == String(repeating: "a", count: 4_095) + ObservationCollector.truncationMarker)
        let limit = run("a message exactly at the limit, and none").collector.observations.map(\.message)
        #expect(limit == [String(repeating: "b", count: 4_096), ""])
        let keys = run("keys that are refused")
        #expect(keys.answers == Array(repeating: PW_ERR, count: 7))
        #expect(keys.collector.problems.count == 7)
        #expect(run("a key of 200 characters in 400 bytes").answers == [PW_OK])
        let bad = run("bad states, metrics, labels and messages")
        // A metric with a bad name is left out of an observation that is kept, as a non-finite one is.
        #expect(bad.answers == [PW_ERR, PW_OK, PW_OK, PW_ERR, PW_ERR, PW_ERR, PW_OK])
        #expect(bad.collector.observations.first { $0.key == "metric" }?.metrics.map(\.name) == ["ok"])
        #expect(
            bad.collector.problems.first
                == "check \"state\": state 7 is not one of ok(0), warning(1), critical(2), unknown(3); refused")
        let twice = run("a key twice, and more than the probe's limit")
        #expect(twice.answers == [PW_OK, PW_ERR, PW_OK, PW_OK, PW_ERR])
        #expect(twice.collector.observations.map(\.key) == ["a", "b", "c"])
        #expect(
            twice.collector.problems == [
                "check \"a\": a second observation with this key in one call; refused, the first kept",
                "more than 3 observations in one call; the rest refused",
            ])
    }
}
