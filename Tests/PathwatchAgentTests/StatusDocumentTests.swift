import PathwatchJSON
import PathwatchProbeKit
import PathwatchTestSupport
import Testing

@testable import PathwatchAgent
@testable import PathwatchSinkKit

@Suite(.onItsOwnThread) struct StatusDocumentTests {
    func makeBook() -> CheckBook {
        var book = CheckBook(agentName: "web-01")
        book.probeOrder = ["z-first", "a-second"]
        book.policies["z-first"] = ProbePolicy(failAfter: 1, recoverAfter: 1, needsNetwork: false, plugin: "disk")
        book.policies["a-second"] = ProbePolicy(failAfter: 1, recoverAfter: 1, needsNetwork: false, plugin: "loadavg")
        return book
    }

    @Test func documentHasTheContractShape() throws {
        var book = makeBook()
        let t = WallTime(milliseconds: 1_795_294_260_123)
        _ = book.apply(
            .sample([
                Observation(
                    key: "/var", state: .warning, message: "86% used",
                    metrics: [("used_pct", 86), ("size_bytes", 1.5e12)], labels: [("mount", "/var")]),
                Observation(key: "/", state: .ok, message: "10% used", metrics: [("used_pct", 10)]),
            ]), probe: "z-first", at: t)
        _ = book.apply(
            .sample([Observation(key: "load", state: .ok, metrics: [("load1", 0.25)])]), probe: "a-second", at: t)
        let identity = AgentIdentity(name: "web-01", startedAt: WallTime(milliseconds: 1_795_294_200_000))
        let (doc, state) = DocumentTree.written(identity: identity, at: t, book: book)
        #expect(state == .warning)
        let text = JSONSerializer.serialize(doc)
        // Key order as in contract §3.
        #expect(doc.objectValue?.keys == ["schema", "agent", "time", "state", "path", "checks"])
        #expect(
            text.hasPrefix(
                #"{"schema":1,"agent":{"name":"web-01","version":"\#(AgentIdentity.version)","started_at":"2026-11-21T20:50:00.000Z"},"time":"2026-11-21T20:51:00.123Z","state":"warning","path":{"status":"unknown""#
            ))
        let checks = try #require(doc["checks"]?.arrayValue)
        // Probes in configuration order, checks by id within a probe.
        #expect(checks.compactMap { $0["id"]?.stringValue } == ["z-first//", "z-first//var", "a-second/load"])
        let varCheck = checks[1]
        #expect(
            varCheck.objectValue?.keys == ["id", "probe", "plugin", "state", "since", "message", "metrics", "labels"])
        #expect(varCheck["metrics"]?["size_bytes"] == 1.5e12)
        #expect(varCheck["labels"]?["mount"] == "/var")
        #expect(varCheck["since"] == "2026-11-21T20:51:00.123Z")
        // Round trip through the strict parser.
        #expect(try JSONParser.parse(text) == doc)
    }

    @Test func emptyAgentIsOk() {
        let (doc, state) = DocumentTree.written(identity: AgentIdentity(name: "x"), at: .now(), book: makeBook())
        #expect(state == .ok)
        #expect(doc["checks"] == .array([]))
    }

    @Test(arguments: [
        ([CheckState.ok, .ok], CheckState.ok), ([.ok, .warning], .warning), ([.warning, .unknown], .unknown),
        ([.unknown, .critical], .critical), ([.critical, .warning, .ok], .critical),
    ])
    func stateIsTheWorstOfItsChecks(states: [CheckState], expected: CheckState) {
        var book = makeBook()
        _ = book.apply(
            .sample(states.enumerated().map { Observation(key: "c\($0.offset)", state: $0.element) }), probe: "z-first",
            at: .now())
        #expect(DocumentTree.written(identity: AgentIdentity(name: "x"), at: .now(), book: book).state == expected)
    }

    @Test func timesAreRFC3339WithMilliseconds() {
        #expect(WallTime(milliseconds: 0).rfc3339 == "1970-01-01T00:00:00.000Z")
        #expect(WallTime(milliseconds: 1_795_294_270_004).rfc3339 == "2026-11-21T20:51:10.004Z")
        let now = WallTime.now().rfc3339
        #expect(now.count == 24 && now.hasSuffix("Z"))
    }

    @Test func eventIdsAreUniqueVersion7() {
        let ids = (0..<1000).map { _ in EventID.make() }
        #expect(Set(ids).count == 1000)
        #expect(ids.allSatisfy { $0.count == 36 && $0[$0.index($0.startIndex, offsetBy: 14)] == "7" })
    }

    @Test func eventIdsCarryTheirMillisecondAndTheRFC9562Variant() {
        #expect(EventID.text(of: Array(0..<16)) == "00010203-0405-0607-0809-0a0b0c0d0e0f")
        #expect(EventID.text(of: [UInt8](repeating: 0xAB, count: 16)) == "abababab-abab-abab-abab-abababababab")
        let id = EventID.make(at: WallTime(milliseconds: 0x0193_F6C2_0A0B))
        #expect(id.hasPrefix("0193f6c2-0a0b-7"), "\(id)")
        // The variant: the first hex digit of the fourth group is 8, 9, a or b.
        #expect("89ab".contains(id[id.index(id.startIndex, offsetBy: 19)]), "\(id)")
    }

    /// A change's line on a json stdout sink is written without the JSON tree; it must be the
    /// tree's text to the byte, whatever the strings hold.
    @Test func changeEventTextIsTheSerializedTree() {
        let paths: [PathSummary] = [
            .offline, .unmonitored,
            PathSummary.compute(from: [
                [
                    WellKnownLabel.interfaceName: "eth0", WellKnownLabel.interfaceType: "ethernet",
                    WellKnownLabel.interfaceUsable: "1", WellKnownLabel.defaultRoute: "100",
                ]
            ]),
        ]
        let messages = [
            "up, carrier, 10000 Mb/s", "", "quote \" backslash \\ tab \t newline \n nul \u{0} del \u{7F}",
            "é → 🚀 \u{2028}",
        ]
        for (i, message) in messages.enumerated() {
            for from in [nil, .ok, .warning, .critical, .unknown] as [CheckState?] {
                let event = ChangeEvent(
                    id: EventID.make(), agent: i == 2 ? "a\"gent" : "edge-1", check: "link/vA \(message)",
                    probe: "link", from: from,
                    to: .critical, at: WallTime(milliseconds: 1_795_294_330_004 + Int64(i)), message: message,
                    path: paths[i % paths.count])
                #expect(event.jsonText == JSONSerializer.serialize(event.json), "\(message)")
            }
        }
    }

    @Test func textFormsAreAlignedAndReadable() {
        let event = ChangeEvent(
            id: "x", agent: "a", check: "link/eth0", probe: "link", from: .ok, to: .critical,
            at: WallTime(milliseconds: 1_795_294_330_004), message: "down: no carrier", path: .offline)
        #expect(
            TextFormat.eventLine(event)
                == "2026-11-21T20:52:10.004Z  link/eth0                     ok → critical         down: no carrier")
        var book = makeBook()
        _ = book.apply(.sample([Observation(key: "/", state: .ok, message: "10% used")]), probe: "z-first", at: .now())
        let table = TextFormat.table(
            StatusSnapshot(identity: AgentIdentity(name: "h"), time: .now(), book: book, probes: nil, sinks: nil))
        #expect(table.contains("CHECK      STATE     MESSAGE"))
        #expect(table.contains("z-first//  ok        10% used"))
    }
}
