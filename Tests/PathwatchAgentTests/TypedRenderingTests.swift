import PathwatchJSON
import PathwatchProbeKit
import PathwatchTestSupport
import Testing

@testable import PathwatchAgent
@testable import PathwatchRemoteWrite
@testable import PathwatchSinkKit
@testable import PathwatchSinkTestSupport

/// Every format renders from a snapshot's typed views; for the same state each must say, byte
/// for byte, what the renderers that read the document back as a tree said (`TreeRenderers`).
@Suite(.onItsOwnThread) struct TypedRenderingTests {
    typealias Writer = StatusDocumentWriterTests

    /// A thousand checks of several plug-ins, with units to convert, labels and repeated names.
    static func largeBook() -> CheckBook {
        var book = CheckBook(agentName: "host")
        let probes = ["disk", "api", "bw", "ping"]
        let plugins = ["disk", "reachability", "bandwidth", "ping"]
        book.probeOrder = probes
        for (probe, plugin) in zip(probes, plugins) {
            book.policies[probe] = ProbePolicy(failAfter: 1, recoverAfter: 1, needsNetwork: false, plugin: plugin)
        }
        let states: [CheckState] = [.ok, .ok, .ok, .warning, .ok, .critical, .ok, .unknown]
        for (p, probe) in probes.enumerated() {
            let observations = (0..<250).map { (i: Int) -> Observation in
                Observation(
                    key: "target-\(i)", state: states[(i + p) % states.count], message: "\(i) is \"fine\" | mostly",
                    metrics: [
                        Metric("total_ms", Double(i) * 1.25), Metric("used_pct", Double(i % 100)),
                        Metric("rx_bps", Double(i) * 1000), Metric("count_total", Double(i)),
                        // Series with labels of their own, one value with a quote and a line break.
                        Metric("depth", Double(i), labels: [("queue", "q\(i % 3)"), ("prio", "p\"\n\(i % 2)")]),
                        Metric("depth", Double(i) + 0.5, labels: [("queue", "other")]),
                    ],
                    labels: [("name", "n\(i)"), ("state", "s\\\(i)"), ("Zone-Name", "z\n\(i % 3)")])
            }
            _ = book.apply(
                .sample(observations), probe: probe, at: WallTime(milliseconds: 1_795_294_260_000 + Int64(p)))
        }
        return book
    }

    static func snapshots() -> [StatusSnapshot] {
        var empty = CheckBook(agentName: "x")
        empty.probeOrder = ["disk"]
        return [
            Writer.snapshot(Writer.variedBook(), agentParts: true),
            Writer.snapshot(Writer.variedBook(), agentParts: false),
            Writer.snapshot(empty, agentParts: true),
            Writer.snapshot(empty, agentParts: false),
            Writer.snapshot(largeBook(), agentParts: true),
        ]
    }

    @Test func prometheusTextIsTheTreeRenderersText() {
        for snapshot in Self.snapshots() {
            let typed = PrometheusExposition.render(snapshot)
            let tree = TreePrometheus.render(DocumentTree.of(snapshot))
            #expect(typed == tree, "typed:\n\(typed.prefix(3000))\ntree:\n\(tree.prefix(3000))")
        }
        #expect(PrometheusExposition.render(nil) == TreePrometheus.render(.object(JSONObject())))
    }

    /// The typed series (what remote_write pushes) are the text's series: the same names, labels
    /// (in the same order) and values, read back from `/metrics` by an independent reader.
    @Test func typedSamplesAreTheExpositionsSeries() {
        func key(_ name: String, _ labels: [(String, String)], _ value: Double) -> String {
            "\(name)|" + labels.map { "\($0.0)=\($0.1)" }.joined(separator: "|") + " \(value)"
        }
        for snapshot in Self.snapshots() {
            let typed = PrometheusExposition.samples(snapshot).map {
                key($0.name, $0.labels.map { ($0.name, $0.value) }, $0.value)
            }
            let text = ExpositionReader.series(in: PrometheusExposition.renderBytes(snapshot)).map { series in
                key(series.name, series.labels.dropFirst().map { ($0.name, $0.value) }, series.value)
            }
            #expect(typed.count == text.count)
            #expect(typed.sorted() == text.sorted(), "typed: \(typed.prefix(20))\ntext: \(text.prefix(20))")
        }
    }

    /// A label value's quote, backslash and line feed are escaped as bytes: a quote followed by a
    /// combining mark, or a line feed after a carriage return, is one character to Swift but still
    /// a quote or a line break to a scraper.
    @Test func labelValuesAreEscapedByteByByte() {
        func label(_ value: String) -> String {
            var out: [UInt8] = []
            PrometheusText.writeLabel(name: "l", value: value, into: &out)
            return String(decoding: out, as: UTF8.self)
        }
        #expect(label("a\"\u{301}b") == "l=\"a\\\"\u{301}b\"")
        #expect(label("x\r\ny\\z") == "l=\"x\r\\ny\\\\z\"")
        // HELP escapes a backslash and a line feed as the format says, and writes a carriage return,
        // like every control character, as its code point behind an escaped backslash.
        #expect(PrometheusText.escapedHelp("line\r\nnext \\") == "line\\\\u{D}\\nnext \\\\")
    }

    @Test func nagiosLineIsTheTreeRenderersLine() {
        for snapshot in Self.snapshots() {
            #expect(NagiosFormat.line(snapshot) == TreeNagios.line(DocumentTree.of(snapshot)))
        }
    }

    @Test func textFormsAreTheTreeRenderersText() {
        for snapshot in Self.snapshots() {
            let tree = DocumentTree.of(snapshot)
            #expect(TextFormat.table(snapshot) == TreeText.table(tree))
            #expect(
                TextFormat.documentLine(snapshot)
                    == TreeText.documentLine(tree, state: snapshot.state, time: snapshot.time))
        }
    }

    /// `pathwatch status` reads the document a running agent sends into a snapshot: its text
    /// and Nagios forms are the agent's own.
    @Test func aReceivedDocumentRendersAsTheAgentsOwn() throws {
        for snapshot in Self.snapshots() {
            let received = StatusSnapshot(received: try JSONParser.parse(snapshot.jsonText()))
            #expect(received.state == snapshot.state)
            #expect(TextFormat.table(received) == TextFormat.table(snapshot))
            #expect(NagiosFormat.line(received) == NagiosFormat.line(snapshot))
        }
        #expect(WallTime(rfc3339: "2026-11-21T20:51:00.123Z") == WallTime(milliseconds: 1_795_294_260_123))
        #expect(WallTime(rfc3339: "1970-01-01T00:00:00.000Z") == WallTime(milliseconds: 0))
        #expect(WallTime(rfc3339: "2024-02-29T23:59:59.999Z")?.rfc3339 == "2024-02-29T23:59:59.999Z")
        #expect(WallTime(rfc3339: "2026-11-21 20:51:00") == nil)
    }

    /// The snapshot's views for formats that hold states: what is firing as announced, and
    /// what changed without anyone being told.
    @Test func firingChecksAreTheAnnouncedProblems() {
        var book = CheckBook(agentName: "h")
        book.probeOrder = ["api"]
        book.policies["api"] = ProbePolicy(failAfter: 1, recoverAfter: 1, needsNetwork: false, plugin: "reachability")
        _ = book.apply(
            .sample([
                Observation(key: "a", state: .critical), Observation(key: "b", state: .ok),
                Observation(key: "c", state: .unknown),
            ]), probe: "api", at: WallTime(milliseconds: 1000))
        let snapshot = StatusSnapshot(
            identity: AgentIdentity(name: "h"), time: WallTime(milliseconds: 1000), book: book, probes: nil, sinks: nil)
        #expect(Set(snapshot.firingChecks.map(\.id)) == ["api/a", "api/c"])
        #expect(snapshot.unannouncedCheckIDs.isEmpty)
        #expect(snapshot.check("api/b")?.state == .ok)
        #expect(snapshot.checks.map(\.id) == ["api/a", "api/b", "api/c"])
    }
}
