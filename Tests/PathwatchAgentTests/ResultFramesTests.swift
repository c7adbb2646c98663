import PathwatchProbeKit
import Testing

@testable import PathwatchAgent
@testable import PathwatchPluginHost

/// The binary record a plug-in's child sends a call's result in: what goes in comes out, and a
/// record that lies about its lengths or its text is refused, never trusted.
@Suite struct ResultFramesTests {
    static let result = CallResult(
        observations: [
            Observation(
                key: "/mnt/my disk", state: .warning, message: "91% used, 3.2 GiB free — «über» 😀",
                metrics: [("used_pct", 91), ("avail_bytes", 3_435_973_836.5), ("below_zero", -0.25)],
                labels: [("mount", "/mnt/my disk"), ("device", "/dev/sdb1")]),
            Observation(key: "empty", state: .unknown),
        ],
        error: "statvfs failed: Permission denied",
        problems: ["check \"x\": metric y is not finite; dropped"])

    /// The result a sample record holds; nil when it is not one.
    static func decoded(_ body: [UInt8]) -> CallResult? {
        guard case .result(.sampled, let result?)? = ResultFrames.decode(body) else { return nil }
        return result
    }

    /// True when the body is a result record that was refused as malformed.
    static func refused(_ body: [UInt8]) -> Bool {
        guard case .result(_, nil)? = ResultFrames.decode(body) else { return false }
        return true
    }

    @Test func whatIsWrittenIsReadBack() throws {
        let result = try #require(Self.decoded(ResultFrames.encode(.sampled, Self.result)))
        #expect(result.observations.count == 2)
        for (got, sent) in zip(result.observations, Self.result.observations) {
            #expect(got.key == sent.key && got.state == sent.state && got.message == sent.message)
            #expect(
                got.metrics.map(\.name) == sent.metrics.map(\.name)
                    && got.metrics.map(\.value) == sent.metrics.map(\.value))
            #expect(
                got.labels.map(\.name) == sent.labels.map(\.name) && got.labels.map(\.value) == sent.labels.map(\.value)
            )
        }
        #expect(result.error == Self.result.error)
        #expect(result.problems == Self.result.problems)
        let event = ResultFrames.encode(.event, CallResult(observations: [], error: nil, problems: []))
        guard case .result(.event, let empty?)? = ResultFrames.decode(event) else {
            Issue.record("an event record was not read as one")
            return
        }
        #expect(empty.observations.isEmpty && empty.error == nil && empty.problems.isEmpty)
    }

    /// The reader reuses a metric or label name when the bytes in its place are the last
    /// observation's: names that change in place (same length, other bytes; another length;
    /// a label where a metric was; none at all) must still come out as they were sent.
    @Test func namesThatChangeInPlaceAreReadAsSent() throws {
        let sent = [
            Observation(
                key: "a", state: .ok, metrics: [("x", 1), ("yy", 2), ("size_bytes", 3)], labels: [("mount", "/")]),
            Observation(
                key: "b", state: .ok, metrics: [("x", 1), ("yz", 2), ("size_byte", 3)], labels: [("mount", "/b")]),
            Observation(
                key: "c", state: .ok, metrics: [("x", 4)], labels: [("yz", "metric name as label"), ("mount", "/c")]),
            Observation(key: "d", state: .ok, labels: [("x", "1"), ("", "empty name"), ("mount", "/d")]),
            Observation(key: "e", state: .ok, metrics: [("é", 1), ("x", 2)], labels: [("", "")]),
            Observation(key: "f", state: .ok, metrics: [("e\u{301}", 1), ("x", 2)]),
        ]
        let result = try #require(
            Self.decoded(ResultFrames.encode(.sampled, CallResult(observations: sent, error: nil, problems: []))))
        #expect(result.observations.count == sent.count)
        for (got, sent) in zip(result.observations, sent) {
            #expect(got.key == sent.key)
            #expect(got.metrics.map { Array($0.name.utf8) } == sent.metrics.map { Array($0.name.utf8) })
            #expect(got.metrics.map(\.value) == sent.metrics.map(\.value))
            #expect(got.labels.map { Array($0.name.utf8) } == sent.labels.map { Array($0.name.utf8) })
            #expect(got.labels.map(\.value) == sent.labels.map(\.value))
        }
    }

    /// Label values are reused by place as names are: a value repeated from the observation
    /// before is the same String (one copy for a thousand checks of one endpoint), and values
    /// that change in place (same length, other bytes; another length; empty) come out as sent.
    @Test func labelValuesThatRepeatAreSharedAndChangesAreReadAsSent() throws {
        let endpoint = "http://127.0.0.1:8080"
        let sent = [
            Observation(key: "a", state: .ok, labels: [("endpoint", endpoint), ("method", "GET")]),
            Observation(key: "b", state: .ok, labels: [("endpoint", endpoint), ("method", "GET")]),
            Observation(key: "c", state: .ok, labels: [("endpoint", "http://127.0.0.1:8081"), ("method", "HEAD")]),
            Observation(key: "d", state: .ok, labels: [("endpoint", "https://127.0.0.1:8081"), ("method", "")]),
            Observation(key: "e", state: .ok, labels: [("method", "GET")]),
            Observation(key: "f", state: .ok, labels: [("endpoint", endpoint)]),
        ]
        let result = try #require(
            Self.decoded(ResultFrames.encode(.sampled, CallResult(observations: sent, error: nil, problems: []))))
        #expect(result.observations.count == sent.count)
        for (got, sent) in zip(result.observations, sent) {
            #expect(got.labels.map { Array($0.name.utf8) } == sent.labels.map { Array($0.name.utf8) })
            #expect(got.labels.map { Array($0.value.utf8) } == sent.labels.map { Array($0.value.utf8) })
        }
        func storage(_ text: String) -> UnsafeRawPointer? {
            text.utf8.withContiguousStorageIfAvailable { UnsafeRawPointer($0.baseAddress) } ?? nil
        }
        let first = try #require(storage(result.observations[0].labels[0].value))
        #expect(storage(result.observations[1].labels[0].value) == first, "a repeated value was made again")
        #expect(storage(result.observations[2].labels[0].value) != first)
    }

    /// Observations whose labels are all the same as the one's before share its array: a
    /// thousand checks of one server hold one array of labels, not one each. A label that
    /// differs anywhere (its name, its value, one more or one fewer) gets an array of its own,
    /// with the labels as sent, and the next observation is compared with that one.
    @Test func labelsThatRepeatWholeShareOneArray() throws {
        let same: [(String, String)] = [("endpoint", "http://127.0.0.1:8080"), ("method", "GET")]
        let sent = [
            Observation(key: "a", state: .ok, labels: same),
            Observation(key: "b", state: .ok, labels: same),
            Observation(key: "c", state: .ok, labels: [("endpoint", "http://127.0.0.1:8080"), ("method", "PUT")]),
            Observation(key: "d", state: .ok, labels: [("endpoint", "http://127.0.0.1:8080"), ("method", "PUT")]),
            Observation(key: "e", state: .ok, labels: [("endpoint", "http://127.0.0.1:8080"), ("verb", "PUT")]),
            Observation(key: "f", state: .ok, labels: Array(same.prefix(1))),
            Observation(key: "g", state: .ok, labels: same),
            Observation(key: "h", state: .ok),
            Observation(key: "i", state: .ok),
            // The same labels after another count of metrics: their names sit in other places.
            Observation(key: "j", state: .ok, metrics: [("x", 1)], labels: same),
            Observation(key: "k", state: .ok, metrics: [("y", 2)], labels: same),
            Observation(key: "l", state: .ok, metrics: [("x", 1), ("endpoint", 3)], labels: [("method", "GET")]),
            Observation(key: "m", state: .ok, metrics: [("x", 1)], labels: [("endpoint", "GET"), ("method", "GET")]),
        ]
        let result = try #require(
            Self.decoded(ResultFrames.encode(.sampled, CallResult(observations: sent, error: nil, problems: []))))
        let got = result.observations
        for (got, sent) in zip(got, sent) {
            #expect(
                got.labels.map(\.name) == sent.labels.map(\.name) && got.labels.map(\.value) == sent.labels.map(\.value)
            )
        }
        func storage(_ index: Int) -> UnsafeRawPointer? {
            got[index].labels.withUnsafeBufferPointer { UnsafeRawPointer($0.baseAddress) }
        }
        #expect(storage(1) == storage(0), "labels repeated whole were not shared")
        #expect(storage(3) == storage(2), "labels repeated after a change were not shared")
        #expect(Set([0, 2, 4, 5, 6, 9, 11, 12].map(storage)).count == 8, "labels that differ shared an array")
        #expect(storage(10) == storage(9), "labels repeated after other metrics were not shared")
    }

    @Test func theObservationCountIsReadFromTheRecordsHeader() {
        #expect(ResultFrames.observationCount(of: ResultFrames.encode(.sampled, Self.result)) == 2)
        let many = CallResult(
            observations: (0..<300).map { Observation(key: "k\($0)", state: .ok) }, error: nil, problems: [])
        #expect(ResultFrames.observationCount(of: ResultFrames.encode(.sampled, many)) == 300)
        #expect(ResultFrames.observationCount(of: [1, 2]) == 0)
    }

    @Test func everyCutShortRecordIsRefused() {
        let body = ResultFrames.encode(.sampled, Self.result)
        for length in 1..<body.count {
            #expect(Self.refused(Array(body[..<length])), "cut at \(length) of \(body.count)")
        }
        #expect(Self.refused(body + [0]), "a byte past the end")
    }

    @Test func aCountBeyondTheRecordIsRefusedBeforeAnythingIsReserved() {
        // One observation claimed 4 billion times.
        var body = ResultFrames.encode(.sampled, Self.result)
        body.replaceSubrange(1..<5, with: [0xFF, 0xFF, 0xFF, 0xFF])
        #expect(Self.refused(body))
    }

    @Test func textThatIsNotUTF8IsRefused() throws {
        var body = ResultFrames.encode(
            .sampled, CallResult(observations: [Observation(key: "abc", state: .ok)], error: nil, problems: []))
        let key = try #require(body.firstIndex(of: UInt8(ascii: "b")))
        body[key] = 0xFF
        #expect(Self.refused(body))
    }

    @Test func aStateOutsideTheFourIsRefused() throws {
        var body = ResultFrames.encode(
            .sampled, CallResult(observations: [Observation(key: "k", state: .critical)], error: nil, problems: []))
        // kind, count, key length, "k", then the state byte.
        #expect(body[10] == 2)
        body[10] = 4
        #expect(Self.refused(body))
    }

    @Test func otherFramesAreJSON() {
        guard case .other(let value)? = ResultFrames.decode(Frames.body(["created": true])) else {
            Issue.record("a JSON frame was not read as JSON")
            return
        }
        #expect(value["created"] == true)
        #expect(ResultFrames.decode(Array("{not json".utf8)) == nil)
    }
}
