import PathwatchJSON
import PathwatchProbeKit
import PathwatchTestSupport
import Testing

@testable import PathwatchAgent
@testable import PathwatchSinkKit

/// The writer renders the status document straight from a snapshot's typed values; its text
/// must be the serializer's text of the document's tree (`DocumentTree`), byte for byte, in
/// both forms.
@Suite(.onItsOwnThread) struct StatusDocumentWriterTests {
    static let identity = AgentIdentity(
        name: "web-01 \"edge\" \\ é", startedAt: WallTime(milliseconds: 1_795_294_200_000))
    static let time = WallTime(milliseconds: 1_795_294_260_123)

    /// What the agent adds after the checks: a probe's health with nulls and fractions, sinks.
    static let probes = [
        ProbeStatus(
            id: "disk", plugin: "disk", isolation: .inline,
            health: ProbeHealth(
                state: .running, restarts: 0, pid: nil, lastError: nil, lastDurationMilliseconds: 1.2345678),
            lastSampleAt: time),
        ProbeStatus(
            id: "net\u{2028}", plugin: "reachability", isolation: .process,
            health: ProbeHealth(
                state: .restarting, restarts: 3, pid: 4242, lastError: "plug-in crashed: \"SIGSEGV\"\n",
                lastDurationMilliseconds: nil),
            lastSampleAt: nil),
    ]
    static let sinks = [
        SinkStatus(type: "file", target: "/var/lib/pathwatch/status.json", queued: 0, dropped: 0),
        SinkStatus(
            type: "webhook", target: "https://example.net/hook", queued: 12, dropped: 1, rejected: 1,
            lastDelivery: time, lastError: "HTTP 500 \u{01}"),
    ]

    /// A book of checks that exercise every corner of the text: escapes, non-ASCII, every kind
    /// of number, labels and none, no metrics, repeated metric and label names, reserved
    /// labels, a stale check, a probe-level failure, checks of a probe no longer configured.
    static func variedBook() -> CheckBook {
        var book = CheckBook(agentName: identity.name)
        book.probeOrder = ["disk", "net", "link", "gone"]
        book.policies["disk"] = ProbePolicy(failAfter: 1, recoverAfter: 1, needsNetwork: false, plugin: "disk")
        book.policies["net"] = ProbePolicy(failAfter: 2, recoverAfter: 1, needsNetwork: true, plugin: "reachability")
        book.policies["link"] = ProbePolicy(failAfter: 1, recoverAfter: 1, needsNetwork: false, plugin: "linkstate")
        book.policies["gone"] = ProbePolicy(failAfter: 1, recoverAfter: 1, needsNetwork: false, plugin: "loadavg")
        let earlier = WallTime(milliseconds: 1_795_294_200_004)
        _ = book.apply(
            .sample([
                Observation(
                    key: "/", state: .ok, message: "10% used, 45 GiB free of 50 GiB",
                    metrics: [("size_bytes", 53_687_091_200), ("used_pct", 10), ("readonly", 0)],
                    labels: [("mount", "/"), ("fstype", "ext4"), ("device", "/dev/sda1")]),
                Observation(
                    key: "/mnt/\"quoted\" \\ back", state: .warning,
                    message: "tab\there, newline\nthere, bell \u{07}, del \u{7F}",
                    metrics: [
                        ("fraction", 0.25), ("third", 1.0 / 3), ("tiny", 1e-7), ("negative", -5),
                        ("negative_fraction", -0.5),
                        ("huge", 1e300), ("two_to_53", 9_007_199_254_740_992), ("past_2_53", 9_007_199_254_740_994),
                        ("minus_two_to_53", -9_007_199_254_740_992), ("minus_zero", -0.0),
                        ("max", Double.greatestFiniteMagnitude),
                        ("least", Double.leastNonzeroMagnitude),
                    ],
                    labels: [("mount", "/mnt/\"quoted\" \\ back"), ("note", "")]),
                Observation(
                    key: "/média/データ/🙂", state: .critical, message: "é, データ, 🙂, e\u{301}, line\u{2028}para\u{2029}end",
                    metrics: [("used_pct", 99)], labels: [("ラベル", "値 🙂"), ("mount", "/média/データ/🙂")]),
                Observation(key: "empty", state: .unknown),
                Observation(
                    key: "repeats", state: .ok, message: "names given twice",
                    metrics: [("a", 1), ("b", 2), ("a", 3)], labels: [("x", "1"), ("y", "2"), ("x", "3")]),
            ]), probe: "disk", at: earlier)
        _ = book.apply(
            .sample([
                Observation(
                    key: "api", state: .critical, message: "HTTP 503", metrics: [("total_ms", 12.5)],
                    labels: [("url", "https://example.net/?q=1&r=2")])
            ]), probe: "net", at: time)
        _ = book.apply(
            .event([
                Observation(
                    key: "eth0", state: .ok, message: "up",
                    labels: [
                        (WellKnownLabel.interfaceName, "eth0"), (WellKnownLabel.interfaceType, "ethernet"),
                        (WellKnownLabel.interfaceUsable, "1"), (WellKnownLabel.defaultRoute, "1"), ("speed", "1000"),
                    ])
            ]), probe: "link", at: earlier)
        _ = book.apply(
            .sample([Observation(key: "load", state: .ok, metrics: [("load1", 0.01)])]), probe: "gone", at: earlier)
        // The disk probe stops reporting one check (it goes stale), net's sample fails.
        _ = book.apply(
            .sample([Observation(key: "/", state: .ok, message: "10% used", metrics: [("used_pct", 10)])]),
            probe: "disk", at: time)
        _ = book.apply(.failure("sample timed out after 5s"), probe: "net", at: time)
        book.probeOrder.removeLast()
        return book
    }

    static func snapshot(_ book: CheckBook, agentParts: Bool) -> StatusSnapshot {
        StatusSnapshot(
            identity: identity, time: time, book: book, probes: agentParts ? probes : nil,
            sinks: agentParts ? sinks : nil)
    }

    static func expectSameText(_ book: CheckBook, agentParts: Bool) {
        let snapshot = snapshot(book, agentParts: agentParts)
        let tree = DocumentTree.of(snapshot)
        for pretty in [false, true] {
            let written = String(decoding: StatusDocumentWriter.bytes(of: snapshot, pretty: pretty), as: UTF8.self)
            let serialized = JSONSerializer.serialize(tree, pretty: pretty)
            #expect(
                Array(written.utf8) == Array(serialized.utf8),
                "pretty: \(pretty)\nwritten:\n\(written)\nserialized:\n\(serialized)")
        }
    }

    @Test func writesTheSerializersTextOfVariedChecks() {
        let book = Self.variedBook()
        #expect(book.records.count >= 8)
        Self.expectSameText(book, agentParts: true)
        Self.expectSameText(book, agentParts: false)
    }

    /// A member name is copied with the comma and indentation it had in its place in the check
    /// before; the same name in the same place but first in its object (a label where a metric
    /// was) takes none, and one at another depth another indentation.
    @Test func repeatedNamesInPlacesOfAnotherShapeKeepTheirOwnLeadIn() {
        var book = CheckBook(agentName: Self.identity.name)
        book.probeOrder = ["disk"]
        book.policies["disk"] = ProbePolicy(failAfter: 1, recoverAfter: 1, needsNetwork: false, plugin: "disk")
        _ = book.apply(
            .sample([
                Observation(key: "a1", state: .ok, metrics: [("a", 1), ("b", 2), ("c", 3)]),
                Observation(key: "a2", state: .ok, metrics: [("a", 1)], labels: [("b", "2"), ("c", "3")]),
                Observation(key: "a3", state: .ok, labels: [("a", "1"), ("b", "2")]),
                Observation(key: "a4", state: .ok, metrics: [("b", 1), ("a", 2), ("c", 3)], labels: [("a", "1")]),
                Observation(key: "a5", state: .ok, metrics: [("a", 1), ("b", 2), ("c", 3)]),
            ]), probe: "disk", at: Self.time)
        Self.expectSameText(book, agentParts: true)
    }

    @Test func writesTheSerializersTextOfAnEmptyBook() {
        var book = CheckBook(agentName: "x")
        book.probeOrder = ["disk"]
        Self.expectSameText(book, agentParts: false)
        let bare = StatusSnapshot(identity: Self.identity, time: Self.time, book: book, probes: [], sinks: [])
        #expect(bare.jsonText() == JSONSerializer.serialize(DocumentTree.of(bare)))
        #expect(bare.jsonText(pretty: true) == JSONSerializer.serialize(DocumentTree.of(bare), pretty: true))
    }

    @Test func manyChecksOfOneSampleShareTheirTime() {
        var book = CheckBook(agentName: "host")
        book.probeOrder = ["disk"]
        book.policies["disk"] = ProbePolicy(failAfter: 1, recoverAfter: 1, needsNetwork: false, plugin: "disk")
        let observations = (0..<300).map { (i: Int) -> Observation in
            let state: CheckState = i % 7 == 0 ? .warning : .ok
            let usedPercent = Double(i % 100)
            let available = Double(i) * 1_048_576.5
            return Observation(
                key: "/m\(i)", state: state, message: "\(i)% used",
                metrics: [("used_pct", usedPercent), ("avail_bytes", available)], labels: [("mount", "/m\(i)")])
        }
        _ = book.apply(.sample(observations), probe: "disk", at: Self.time)
        _ = book.apply(
            .sample(Array(observations.prefix(200))), probe: "disk", at: WallTime(milliseconds: 1_795_294_270_004))
        Self.expectSameText(book, agentParts: true)
    }

    /// A snapshot's text is its document's text, the compact form written once and shared; a
    /// snapshot of the same checks given in document order writes the same text.
    @Test func snapshotTextIsItsDocumentsText() {
        let snapshot = Self.snapshot(Self.variedBook(), agentParts: true)
        let tree = DocumentTree.of(snapshot)
        let compact = snapshot.jsonText()
        #expect(compact == JSONSerializer.serialize(tree))
        #expect(snapshot.jsonText(pretty: true) == JSONSerializer.serialize(tree, pretty: true))
        #expect(snapshot.jsonText() == compact)
        // `once` writes the pretty text's bytes without making a String of them.
        #expect(snapshot.prettyJSONBytes() == Array(JSONSerializer.serialize(tree, pretty: true).utf8))
        let given = StatusSnapshot(
            identity: Self.identity, time: Self.time, checks: snapshot.checks, path: snapshot.path, probes: Self.probes,
            sinks: Self.sinks)
        #expect(given.state == snapshot.state)
        #expect(given.jsonText() == compact)
        #expect(given.jsonText(pretty: true) == JSONSerializer.serialize(tree, pretty: true))
    }

    /// Written in pieces (a file sink's document), the text is the same, byte for byte, in both
    /// forms and with the newline after it; each piece but the last holds at least the size
    /// asked, and ends where a check, probe or sink ends, so none holds much more.
    @Test func piecesMakeTheSameTextAndStaySmall() {
        var book = CheckBook(agentName: "host")
        book.probeOrder = ["disk"]
        book.policies["disk"] = ProbePolicy(failAfter: 1, recoverAfter: 1, needsNetwork: false, plugin: "disk")
        let observations = (0..<400).map { (i: Int) -> Observation in
            Observation(
                key: "/m\(i)", state: i % 9 == 0 ? .critical : .ok, message: "\(i)% used",
                metrics: [("used_pct", Double(i % 100)), ("avail_bytes", Double(i) * 1_048_576.5)],
                labels: [("mount", "/m\(i)")])
        }
        _ = book.apply(.sample(observations), probe: "disk", at: Self.time)
        for agentParts in [false, true] {
            let snapshot = Self.snapshot(book, agentParts: agentParts)
            for pretty in [false, true] {
                for size in [1, 700, 4096, 1 << 20] {
                    var pieces: [[UInt8]] = []
                    StatusDocumentWriter.write(snapshot, pretty: pretty, inPiecesOf: size, endingWithNewline: true) {
                        pieces.append($0)
                    }
                    let whole = StatusDocumentWriter.bytes(of: snapshot, pretty: pretty) + [UInt8(ascii: "\n")]
                    #expect(pieces.flatMap { $0 } == whole, "pretty \(pretty), pieces of \(size)")
                    #expect(pieces.dropLast().allSatisfy { $0.count >= size })
                    // After the document's head, which the first piece holds, a piece ends with the
                    // check that filled it: one of this book is under 400 bytes in either form.
                    #expect(
                        pieces.dropFirst().dropLast().allSatisfy { $0.count < size + 400 }, "\(pieces.map(\.count))")
                    if size == 4096 { #expect(pieces.count > 10, "\(whole.count) bytes in \(pieces.count) pieces") }
                    if size == 1 << 20 { #expect(pieces.count == 1) }
                }
            }
        }
    }
}
